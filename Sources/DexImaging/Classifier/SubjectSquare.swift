import DexModel

/// The square around the subject of a photo on a plain background, in the photo's pixels: the
/// network's second view of such a photo (``ClassifierViews/centreCropAndSubject``).
///
/// The square may reach past the photo's edges (a subject near an edge, or longer than the
/// photo is wide); there it is filled with the ``background`` colour, as if the plain
/// background went on. ``ImagePreprocessor/subjectSquare(in:)`` finds it and
/// ``ImagePreprocessor/networkInput(from:square:)`` resamples it.
public struct SubjectSquare: Sendable, Hashable {
  /// The square's left edge in the photo's columns; negative when it starts left of the photo.
  public var x: Int
  /// The square's top edge in the photo's rows; negative when it starts above the photo.
  public var y: Int
  /// The square's side in pixels, at least 1.
  public var side: Int
  /// The plain background's colour (the median of the photo's border), which fills the square
  /// where it reaches past the photo.
  public var background: DexColor

  /// Creates a square; a side below 1 becomes 1.
  public init(x: Int, y: Int, side: Int, background: DexColor) {
    self.x = x
    self.y = y
    self.side = max(1, side)
    self.background = background
  }
}
