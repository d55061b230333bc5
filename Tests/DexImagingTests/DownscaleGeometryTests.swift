import DexTestTraits
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct DownscaleGeometryTests {
  typealias Size = DownscaleGeometry.Size

  /// Fitting keeps the aspect ratio, rounds half up, never collapses a sliver to zero and never
  /// upscales: (stored width, height, max dimension, expected width, height).
  @Test(arguments: [
    (4000, 3000, 1024, 1024, 768), (3000, 4000, 1024, 768, 1024),
    (5312, 2988, 1024, 1024, 576),  // 1024 x 575.99... -> 576
    (5000, 1, 1024, 1024, 1),  // a sliver
    (800, 600, 1024, 800, 600), (1024, 10, 1024, 1024, 10),  // never upscaled
  ])
  func fitting(
    _ width: Int, _ height: Int, _ maximumDimension: Int, _ outWidth: Int, _ outHeight: Int
  ) {
    #expect(
      DownscaleGeometry.fitting(
        Size(width: width, height: height), maximumDimension: maximumDimension)
        == Size(width: outWidth, height: outHeight))
  }

  @Test func fillingSetsTheShortSide() {
    #expect(
      DownscaleGeometry.filling(Size(width: 4000, height: 3000), shortSide: 256)
        == Size(width: 341, height: 256))
    #expect(
      DownscaleGeometry.filling(Size(width: 300, height: 200), shortSide: 256)
        == Size(width: 300, height: 200))
  }

  /// The libjpeg scale (numerator over 8) keeps the target covered with the gap to spare, and
  /// an exact DCT scale is taken whatever the gap: (stored, target, gap, expected numerator).
  @Test(arguments: [
    (4000, 3000, 1024, 768, 1.0, 4),  // 2000 x 1500
    (4000, 3000, 1024, 768, 2.0, 8),  // 2048 needed
    (4000, 3000, 400, 300, 1.0, 1),  // 500 x 375
    (4000, 3000, 1024, 768, .nan, 4),  // a NaN gap counts as 1
    (4096, 4096, 1024, 1024, 1.5, 2), (4096, 4096, 1024, 1024, 4.0, 2),  // exact: 1/4
    (4096, 4096, 1023, 1023, 1.5, 4),  // one pixel off is no longer exact: 2048 >= 1023 * 1.5
    (4352, 2448, 1024, 576, 1.5, 4),  // 1088 x 612 at 1/4: close to the target, not exact
  ])
  func jpegScale(
    _ width: Int, _ height: Int, _ targetWidth: Int, _ targetHeight: Int, _ gap: Double,
    _ expected: Int
  ) {
    #expect(
      DownscaleGeometry.jpegNumerator(
        stored: Size(width: width, height: height),
        target: Size(width: targetWidth, height: targetHeight), gap: gap) == expected)
  }

  @Test func jpegScaleForAMinimumShortSide() {
    let stored = Size(width: 4000, height: 3000)
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 256) == 1)  // 375
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 400) == 2)  // 750
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 5000) == 8)
  }

  @Test func libjpegRoundsScaledSizesUp() {
    #expect(
      DownscaleGeometry.jpegScaled(Size(width: 4001, height: 3001), numerator: 1)
        == Size(width: 501, height: 376))
  }

  @Test func qualityMapsToLibjpegScale() {
    #expect(DownscaleOptions(quality: 0.8).libjpegQuality == 80)
    #expect(DownscaleOptions(quality: 0).libjpegQuality == 1)
    #expect(DownscaleOptions(quality: 7).libjpegQuality == 100)
    #expect(DownscaleOptions(quality: .nan).libjpegQuality == 80)
  }
}
