import Foundation

/// Why ``LenientJSONReader`` could not read a value, with the UTF-8 byte offset where it gave up.
public struct LenientJSONError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The kinds of failure the reader distinguishes.
  public enum Kind: Equatable, Hashable, Sendable {
    /// The input holds no value at all (empty, whitespace or comments only).
    case empty
    /// A character that cannot start or continue a value here.
    case unexpectedCharacter(Character)
    /// Nesting went deeper than ``LenientJSONReader/maximumDepth``.
    case tooDeep(limit: Int)
  }

  /// What went wrong.
  public var kind: Kind
  /// The UTF-8 byte offset in the input where the reader stopped.
  public var offset: Int

  /// Creates an error; used by the reader and by tests.
  public init(kind: Kind, offset: Int) {
    self.kind = kind
    self.offset = offset
  }

  /// A short message naming the problem and its offset; it never repeats the input.
  public var description: String {
    switch kind {
    case .empty: "No JSON value in the input"
    case .unexpectedCharacter(let character):
      "Unexpected character \(character.debugDescription) at byte \(offset)"
    case .tooDeep(let limit): "JSON nested deeper than \(limit) levels at byte \(offset)"
    }
  }
}

extension LenientJSONError: LocalizedError {
  /// The same text as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }
}
