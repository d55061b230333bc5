#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  extension DecodedImage {
    /// The same image with ``orientation`` applied to the pixels (a no-op when already upright).
    func orientedUpright() throws(ImagingError) -> DecodedImage {
      guard !isUpright, orientation != .up else {
        var copy = self
        copy.isUpright = true
        return copy
      }
      let source = image
      let size =
        orientation.swapsDimensions
        ? DownscaleGeometry.Size(width: source.height, height: source.width)
        : DownscaleGeometry.Size(width: source.width, height: source.height)
      let rotated = try RGBImage.allocatePixels(size) { buffer throws(ImagingError) in
        let status = source.pixels.withUnsafeBufferPointer { src in
          dex_orient_rgb(
            src.baseAddress, Int32(source.width), Int32(source.height), buffer,
            Int32(orientation.rawValue))
        }
        guard ShimStatus(status) == .ok else { throw .invalidArgument("orientation failed") }
      }
      guard let upright = RGBImage(width: size.width, height: size.height, pixels: rotated) else {
        throw .outOfMemory
      }
      var copy = self
      copy.image = upright
      copy.isUpright = true
      return copy
    }
  }
#endif
