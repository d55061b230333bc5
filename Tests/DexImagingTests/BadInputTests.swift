#if os(Linux) && SystemImageCodecs
  import DexTestSupport
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  @Suite(.offCooperativePool) struct BadInputTests {
    let downscaler = ImageDownscaler()

    /// Runs the full pipeline and returns the error (nil on success).
    func failure(
      _ data: Data, options: DownscaleOptions = DownscaleOptions(maximumDimension: 64)
    ) -> ImagingError? {
      do {
        _ = try downscaler.downscale(data, options: options)
        return nil
      } catch {
        return error
      }
    }

    @Test func zeroBytes() {
      #expect(failure(Data()) == .emptyInput)
    }

    @Test func randomBytes() {
      var random = SeededGenerator(seed: 42)
      for length in [1, 2, 3, 7, 100, 5000] {
        let error = failure(Data(random.bytes(length)))
        guard case .unsupportedFormat = error else {
          Issue.record("length \(length): \(String(describing: error))")
          continue
        }
      }
    }

    @Test func randomBytesAfterAJPEGOrPNGSignature() {
      var random = SeededGenerator(seed: 7)
      for _ in 0..<50 {
        let jpeg = Data([0xFF, 0xD8, 0xFF] + random.bytes(300))
        #expect(failure(jpeg) != nil)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + random.bytes(300))
        #expect(failure(png) != nil)
      }
    }

    @Test(arguments: ["photo.jpg", "small-progressive.jpg", "small-cmyk-adobe.jpg"])
    func truncatedJPEGIsRejected(_ name: String) throws {
      let data = try resource(name)
      let offsets = Array(stride(from: 1, to: data.count, by: max(1, data.count / 60)))
      for offset in offsets {
        let error = failure(data.prefix(offset))
        #expect(error != nil, "offset \(offset) was accepted")
        switch error {
        case .truncatedData, .corruptData, .unsupportedFormat: break
        default: Issue.record("offset \(offset): unexpected \(String(describing: error))")
        }
      }
    }

    @Test func truncatedJPEGCanBeAcceptedAsPartial() throws {
      let data = try resource("photo.jpg")
      let cut = data.prefix(data.count * 6 / 10)
      #expect(failure(cut) == .truncatedData(format: .jpeg))
      var options = DownscaleOptions(maximumDimension: 200)
      options.decoding.allowsPartialImages = true
      let result = try downscaler.downscale(cut, options: options)
      #expect(result.isPartial)
      #expect(result.pixelWidth == 200)
    }

    @Test(arguments: [
      "png-rgb8.png", "png-rgba8-interlaced.png", "png-palette8.png", "png-gray16.png",
    ])
    func truncatedPNGIsRejected(_ name: String) throws {
      let data = try resource(name)
      // Up to the IEND chunk (12 bytes): a file cut only there still holds the whole image.
      for offset in stride(from: 1, to: data.count - 12, by: max(1, data.count / 60)) {
        let error = failure(data.prefix(offset))
        #expect(error != nil, "offset \(offset) was accepted")
      }
    }

    @Test func truncatedPNGCanBeAcceptedAsPartial() throws {
      let data = try resource("png-rgb8.png")
      let cut = data.prefix(data.count / 2)
      #expect(failure(cut) == .truncatedData(format: .png))
      var options = DownscaleOptions(maximumDimension: 64)
      options.decoding.allowsPartialImages = true
      let result = try downscaler.downscale(cut, options: options)
      #expect(result.isPartial)
      #expect(result.pixelWidth == 64 && result.pixelHeight == 40)
    }

    @Test func unsupportedJPEGProcessIsCorruptDataWithTheLibraryMessage() throws {
      var bytes = [UInt8](try resource("photo.jpg"))
      let sof = try #require(startOfFrameOffset(bytes))
      bytes[sof + 1] = 0xC3  // lossless JPEG: libjpeg-turbo 2.1 cannot decode it
      guard case .corruptData(.jpeg, let message) = failure(Data(bytes)) else {
        Issue.record("expected corruptData")
        return
      }
      #expect(!message.isEmpty)
    }

    @Test func corruptMarkersNeverCrash() throws {
      let original = [UInt8](try resource("small-420.jpg"))
      var random = SeededGenerator(seed: 99)
      // Overwrite marker bytes and header bytes at pseudo-random positions in the first 700 bytes.
      for _ in 0..<200 {
        var bytes = original
        for _ in 0..<3 {
          let position = 2 + Int(random.next() % 700)
          bytes[position] = UInt8(truncatingIfNeeded: random.next())
        }
        _ = failure(Data(bytes))  // any result is fine; it must return
      }
      // Entropy-coded corruption decodes with warnings rather than failing.
      var noisy = original
      for position in stride(from: original.count / 2, to: original.count / 2 + 40, by: 4) {
        noisy[position] ^= 0x5A
      }
      _ = failure(Data(noisy))
    }

    @Test func hugeClaimedJPEGDimensionsAreRefusedBeforeDecoding() throws {
      var bytes = [UInt8](try resource("photo.jpg"))
      let sof = try #require(startOfFrameOffset(bytes))
      // SOF: FF C0 len(2) precision(1) height(2) width(2)
      bytes[sof + 5] = 0xFD
      bytes[sof + 6] = 0xE8  // 65000
      bytes[sof + 7] = 0xFD
      bytes[sof + 8] = 0xE8
      let error = failure(Data(bytes))
      #expect(error == .imageTooLarge(width: 65000, height: 65000, maximumPixelCount: 100_000_000))
      #expect(error?.description.contains("65000 x 65000") == true)
    }

    @Test func hugeClaimedPNGDimensionsAreRefusedBeforeDecoding() {
      var ihdr = bigEndian32(100_000) + bigEndian32(100_000)
      ihdr += [8, 2, 0, 0, 0]
      let png =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
        + pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + pngChunk("IEND", [])
      #expect(
        failure(Data(png))
          == .imageTooLarge(width: 100_000, height: 100_000, maximumPixelCount: 100_000_000))
    }

    @Test func configurableLimits() throws {
      let data = try resource("photo.jpg")
      var options = DownscaleOptions(maximumDimension: 64)
      options.decoding.limits = DecodingLimits(maximumPixelCount: 1000)
      #expect(
        failure(data, options: options)
          == .imageTooLarge(width: 960, height: 540, maximumPixelCount: 1000))
      options.decoding.limits = DecodingLimits(maximumByteCount: 100)
      #expect(
        failure(data, options: options)
          == .inputTooLarge(byteCount: data.count, maximumByteCount: 100))
      #expect(
        ImagingError.inputTooLarge(byteCount: 5, maximumByteCount: 4).description.contains(
          "5 bytes"))
    }

    @Test func malformedEXIFInARealJPEGIsIgnored() throws {
      let original = [UInt8](try resource("photo.jpg"))
      let tiff = EXIFReaderTests.tiff(bigEndian: false, value: 6, ifdOffset: 0x7FFF_FFF0)
      let app1 = Array(EXIFReaderTests.jpeg(withAPP1: tiff)[2..<(tiff.count + 12)])
      let bytes = Array(original[0..<2]) + app1 + Array(original[2...])
      let result = try downscaler.downscale(
        Data(bytes), options: DownscaleOptions(maximumDimension: 96))
      #expect(result.appliedOrientation == .up)
      #expect(result.pixelWidth == 96 && result.pixelHeight == 54)
    }

    @Test func invalidArguments() throws {
      let data = try resource("photo.jpg")
      guard case .invalidArgument = failure(data, options: DownscaleOptions(maximumDimension: 0))
      else {
        Issue.record("maximumDimension 0 accepted")
        return
      }
      #expect(throws: ImagingError.self) {
        try downscaler.decodePixels(from: data, target: .minimumShortSide(-1))
      }
    }
  }
#endif
