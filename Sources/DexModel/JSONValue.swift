import Foundation

/// A JSON value as read by ``LenientJSONReader``: the neutral form model replies are parsed into
/// before fields are picked out tolerantly.
public enum JSONValue: Hashable, Sendable {
  /// `null` (also Python's `None`).
  case null
  /// `true` or `false` (also Python's `True` and `False`).
  case bool(Bool)
  /// Any number; JSON does not distinguish integers.
  case number(Double)
  /// A string, with escapes resolved.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object; when a key repeats, the last value wins, as in most JSON readers.
  case object([String: JSONValue])

  /// The members, when this is an object.
  public var objectMembers: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// The elements, when this is an array.
  public var arrayElements: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// The text, when this is a string.
  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The number, when this is a number.
  public var numberValue: Double? {
    if case .number(let number) = self { return number }
    return nil
  }

  /// Looks up a member when this is an object.
  public subscript(key: String) -> JSONValue? { objectMembers?[key] }
}

extension JSONValue: Codable {
  /// Decodes any JSON from a standard `Decoder`, so `JSONValue` can stand in for "whatever came".
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else if let object = try? container.decode([String: JSONValue].self) {
      self = .object(object)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "Not a JSON value")
    }
  }

  /// Encodes as standard JSON.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}
