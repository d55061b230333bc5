import DexTestTraits
import Testing

@testable import DexImaging

@Suite(.offCooperativePool) struct DownscaleGeometryTests {
  typealias Size = DownscaleGeometry.Size

  @Test func fittingKeepsAspectRatioAndRoundsHalfUp() {
    #expect(
      DownscaleGeometry.fitting(Size(width: 4000, height: 3000), maxDimension: 1024)
        == Size(width: 1024, height: 768))
    #expect(
      DownscaleGeometry.fitting(Size(width: 3000, height: 4000), maxDimension: 1024)
        == Size(width: 768, height: 1024))
    // 5312 x 2988 -> 1024 x 575.99... -> 576
    #expect(
      DownscaleGeometry.fitting(Size(width: 5312, height: 2988), maxDimension: 1024)
        == Size(width: 1024, height: 576))
    // A sliver never collapses to zero.
    #expect(
      DownscaleGeometry.fitting(Size(width: 5000, height: 1), maxDimension: 1024)
        == Size(width: 1024, height: 1))
  }

  @Test func fittingNeverUpscales() {
    #expect(
      DownscaleGeometry.fitting(Size(width: 800, height: 600), maxDimension: 1024)
        == Size(width: 800, height: 600))
    #expect(
      DownscaleGeometry.fitting(Size(width: 1024, height: 10), maxDimension: 1024)
        == Size(width: 1024, height: 10))
  }

  @Test func fillingSetsTheShortSide() {
    #expect(
      DownscaleGeometry.filling(Size(width: 4000, height: 3000), shortSide: 256)
        == Size(width: 341, height: 256))
    #expect(
      DownscaleGeometry.filling(Size(width: 300, height: 200), shortSide: 256)
        == Size(width: 300, height: 200))
  }

  @Test func jpegScaleKeepsTheTargetCovered() {
    let stored = Size(width: 4000, height: 3000)
    let target = Size(width: 1024, height: 768)
    // 2000x1500, then 2048 needed
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, target: target, gap: 1) == 4)
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, target: target, gap: 2) == 8)
    #expect(
      DownscaleGeometry.jpegNumerator(stored: stored, target: Size(width: 400, height: 300), gap: 1)
        == 1)  // 500x375
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, target: target, gap: .nan) == 4)
    // 375 >= 256
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 256) == 1)
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 400) == 2)  // 750
    #expect(DownscaleGeometry.jpegNumerator(stored: stored, minimumShortSide: 5000) == 8)
  }

  @Test func anExactDCTScaleIsTakenWhateverTheGap() {
    let square = Size(width: 4096, height: 4096)
    let target = Size(width: 1024, height: 1024)
    #expect(DownscaleGeometry.jpegNumerator(stored: square, target: target, gap: 1.5) == 2)
    #expect(DownscaleGeometry.jpegNumerator(stored: square, target: target, gap: 4) == 2)
    // One pixel off is no longer exact: the gap rule decides again (2048 >= 1023 * 1.5).
    #expect(
      DownscaleGeometry.jpegNumerator(
        stored: square, target: Size(width: 1023, height: 1023), gap: 1.5) == 4)
    // 4352 x 2448 at 1/4 is 1088 x 612: close to 1024 x 576 but not exact, so the gap applies.
    #expect(
      DownscaleGeometry.jpegNumerator(
        stored: Size(width: 4352, height: 2448), target: Size(width: 1024, height: 576),
        gap: 1.5) == 4)
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
