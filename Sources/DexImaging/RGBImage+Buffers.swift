extension RGBImage {
  /// Allocates `size.width * size.height * 3` bytes and lets `fill` write every one of them.
  ///
  /// `fill` receives the base address; the array is only returned when it did not throw (on a
  /// throw its bytes are zeroed first, so no uninitialised memory is ever observable).
  static func allocatePixels(
    _ size: DownscaleGeometry.Size, fill: (UnsafeMutablePointer<UInt8>) throws(ImagingError) -> Void
  ) throws(ImagingError) -> [UInt8] {
    let (area, overflowA) = size.width.multipliedReportingOverflow(by: size.height)
    let (count, overflowB) = area.multipliedReportingOverflow(by: 3)
    guard size.width > 0, size.height > 0, !overflowA, !overflowB else { throw .outOfMemory }
    var failure: ImagingError?
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      guard let base = buffer.baseAddress else {
        failure = .outOfMemory
        initialized = 0
        return
      }
      do throws(ImagingError) {
        try fill(base)
        initialized = count
      } catch {
        failure = error
        initialized = 0
      }
    }
    if let failure { throw failure }
    return pixels
  }
}
