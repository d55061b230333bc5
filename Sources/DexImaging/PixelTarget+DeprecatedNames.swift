// The name `PixelTarget.fitting` had before limits were spelled `maximum...` everywhere; it
// still builds a target, deprecated, with a fix-it. (A `switch` pattern that spells the old
// label must be renamed: an enum case's label has no alias.)

extension PixelTarget {
  /// The target ``fitting(maximumDimension:)`` builds, under its old label.
  @available(*, deprecated, renamed: "fitting(maximumDimension:)")
  public static func fitting(maxDimension: Int) -> PixelTarget {
    .fitting(maximumDimension: maxDimension)
  }
}
