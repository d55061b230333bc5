import DexImaging
import DexModel
import Foundation

/// An ``/DexImaging/ImageClassifying`` that gives the same guess for every photo, or none: the
/// on-device pass of a test, without loading a network.
///
/// Use ``blind`` for a classifier that never finds anything (the scanner then depends on the
/// cloud pass alone), or a fixed guess to check what the scanner does with it (the category
/// hint it sends, the offline entry it builds).
public struct FixedClassifier: ImageClassifying {
  /// The guess every call returns; `nil` for none.
  public let guess: LocalGuess?

  /// A classifier that always returns `guess`.
  public init(_ guess: LocalGuess?) {
    self.guess = guess
  }

  /// A classifier that always guesses `category` with `label`, at `confidence`.
  public init(category: DexCategory, label: String, confidence: Double = 0.9) {
    self.init(LocalGuess(category: category, label: label, confidence: confidence))
  }

  /// A classifier that never finds anything.
  public static let blind = FixedClassifier(nil)

  /// Returns ``guess`` without reading `imageData`.
  public func classify(imageData: Data) async -> LocalGuess? { guess }

  /// Returns ``guess`` without reading `image`.
  public func classify(_ image: DownscaledImage) async -> LocalGuess? { guess }
}
