#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import Foundation

  /// Encodes upright RGB8 pixels to a baseline (or progressive) JFIF JPEG with libjpeg-turbo.
  enum JPEGEncoder {
    static func encode(
      _ image: RGBImage, quality: Int, subsampling: ChromaSubsampling, progressive: Bool
    ) throws(ImagingError) -> Data {
      var output: UnsafeMutablePointer<UInt8>?
      var size = 0
      var message = [CChar](repeating: 0, count: Int(DEX_MESSAGE_CAPACITY))
      let mode: Int32
      switch subsampling {
      case .yuv420: mode = 420
      case .yuv422: mode = 422
      case .yuv444: mode = 444
      }
      let status = image.pixels.withUnsafeBufferPointer { pixels in
        message.withUnsafeMutableBufferPointer { text in
          dex_jpeg_encode_rgb(
            pixels.baseAddress, Int32(image.width), Int32(image.height), image.width * 3,
            Int32(quality.clamped(to: 1...100)), mode, progressive ? 1 : 0, &output, &size,
            text.baseAddress)
        }
      }
      guard ShimStatus(status) == .ok, let output else {
        let text = String(
          decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ShimStatus(status) == .outOfMemory
          ? .outOfMemory : .encodingFailed(message: text)
      }
      defer { dex_free(output) }
      return Data(bytes: output, count: size)
    }
  }
#endif
