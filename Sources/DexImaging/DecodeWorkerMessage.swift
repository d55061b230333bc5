#if os(Linux)
  import DexModel
  import Foundation

  /// What ``IsolatedImageDecoder`` asks `dex-decode-worker` for, and what comes back: a JSON
  /// header of at most ``headerLimit`` bytes behind its 4-byte little-endian length, then the
  /// payloads the header counts (the photo; the pixels, the JPEG and the thumbnail).
  ///
  /// Package-wide so that the worker executable and the decoder share one definition.
  package enum DecodeWorkerMessage {
    /// The largest header either side accepts.
    package static let headerLimit = 64 * 1024

    /// One decode: the options of the in-process call, flattened.
    package struct Request: Codable, Sendable {
      /// What the worker does with the bytes.
      package enum Mode: String, Codable, Sendable {
        /// ``ImageDecoding/decodePixels(from:target:options:)``.
        case decodePixels
        /// ``ImageDownscaling/downscale(_:options:)``.
        case downscale
        /// Test hooks, honoured only by a worker started with `--test-hooks`: never answer,
        /// allocate 4 GiB, end with SIGSEGV, report (as an invalid-argument error) what
        /// opening a file, a socket and a pipe gave, make a system call its seccomp filter
        /// ends it for (`execve`), or send its answer twice (the second ahead of a next
        /// request, as a compromised worker could).
        case testHang, testAllocate, testCrash, testConfinement, testForbiddenSystemCall
        case testReplyTwice
      }

      package var mode: Mode
      package var target: Target
      package var limits: Limits
      package var background: DexColor
      package var allowsPartialImages: Bool
      package var reducingGap: Double
      package var chromaUpsampling: ChromaUpsampling
      package var advisesHugePages: Bool
      /// The downscale's output settings (``Mode/downscale`` only).
      package var output: Output?
      /// CPU seconds this request may use.
      package var cpuSeconds: Int
      /// The photo's length in bytes (the payload that follows).
      package var byteCount: Int
      /// A number the host draws for each request and the reply must carry back, so that bytes
      /// a worker sent ahead, or an answer to an earlier request, are never taken for this
      /// request's answer.
      package var requestID: UInt64 = 0

      /// ``PixelTarget`` as data.
      package struct Target: Codable, Sendable {
        package var kind: String
        package var value: Int
      }

      /// ``DecodingLimits`` as data.
      package struct Limits: Codable, Sendable {
        package var maximumPixelCount: Int
        package var maximumByteCount: Int
        package var maximumDimension: Int
        package var maximumMemoryByteCount: Int
        package var maximumItemCount: Int
      }

      /// ``DownscaleOptions`` beyond its decoding options.
      package struct Output: Codable, Sendable {
        package var maximumDimension: Int
        package var quality: Double
        package var chromaSubsampling: ChromaSubsampling
        package var isProgressive: Bool
        package var maximumThumbnailDimension: Int?
      }

      package init(
        mode: Mode, target: PixelTarget, options: DecodingOptions, output: DownscaleOptions?,
        cpuSeconds: Int, byteCount: Int
      ) {
        self.mode = mode
        switch target {
        case .fitting(let side): self.target = Target(kind: "fitting", value: side)
        case .minimumShortSide(let side):
          self.target = Target(kind: "minimumShortSide", value: side)
        case .original: self.target = Target(kind: "original", value: 0)
        }
        let limits = options.limits
        self.limits = Limits(
          maximumPixelCount: limits.maximumPixelCount, maximumByteCount: limits.maximumByteCount,
          maximumDimension: limits.maximumDimension,
          maximumMemoryByteCount: limits.maximumMemoryByteCount,
          maximumItemCount: limits.maximumItemCount)
        background = options.background
        allowsPartialImages = options.allowsPartialImages
        reducingGap = options.reducingGap
        chromaUpsampling = options.chromaUpsampling
        advisesHugePages = options.advisesHugePages
        self.output = output.map {
          Output(
            maximumDimension: $0.maximumDimension, quality: $0.quality,
            chromaSubsampling: $0.chromaSubsampling, isProgressive: $0.isProgressive,
            maximumThumbnailDimension: $0.maximumThumbnailDimension)
        }
        self.cpuSeconds = cpuSeconds
        self.byteCount = byteCount
      }

      /// The target this request names; `nil` for an unknown kind.
      package var pixelTarget: PixelTarget? {
        switch target.kind {
        case "fitting": .fitting(maximumDimension: target.value)
        case "minimumShortSide": .minimumShortSide(target.value)
        case "original": .original
        default: nil
        }
      }

      /// The decoding options this request names.
      package var decodingOptions: DecodingOptions {
        DecodingOptions(
          limits: DecodingLimits(
            maximumPixelCount: limits.maximumPixelCount, maximumByteCount: limits.maximumByteCount,
            maximumDimension: limits.maximumDimension,
            maximumMemoryByteCount: limits.maximumMemoryByteCount,
            maximumItemCount: limits.maximumItemCount),
          background: background, allowsPartialImages: allowsPartialImages,
          reducingGap: reducingGap, chromaUpsampling: chromaUpsampling,
          advisesHugePages: advisesHugePages)
      }

      /// The downscale options this request names (``Mode/downscale``).
      package var downscaleOptions: DownscaleOptions? {
        output.map {
          DownscaleOptions(
            maximumDimension: $0.maximumDimension, quality: $0.quality,
            chromaSubsampling: $0.chromaSubsampling, isProgressive: $0.isProgressive,
            decoding: decodingOptions, maximumThumbnailDimension: $0.maximumThumbnailDimension)
        }
      }
    }

    /// The answer: an image (pixels, and for a downscale the JPEGs) or a typed error.
    package struct Reply: Codable, Sendable {
      /// The ``Request/requestID`` of the request answered.
      package var requestID: UInt64 = 0
      package var failure: Failure?
      package var width = 0
      package var height = 0
      package var sourceFormat: ImageFormat?
      package var sourceWidth = 0
      package var sourceHeight = 0
      package var orientation: ImageOrientation = .up
      package var isPartial = false
      /// The photo's EXIF date (``Mode/downscale`` only); refused when invalid.
      package var exifDate: EXIFDate?
      package var pixelByteCount = 0
      package var jpegByteCount = 0
      package var thumbnailByteCount = 0

      package init() {}

      /// ``ImagingError`` as data (the worker's own errors cross the process boundary as
      /// they are).
      package struct Failure: Codable, Sendable {
        package var kind: String
        package var format: ImageFormat?
        package var numbers: [Int] = []
        package var text: String?
      }
    }
  }

  extension DecodeWorkerMessage.Reply.Failure {
    /// The failure describing `error`.
    package init(_ error: ImagingError) {
      switch error {
      case .emptyInput: self.init(kind: "emptyInput")
      case .unsupportedFormat(let detected): self.init(kind: "unsupportedFormat", text: detected)
      case .corruptData(let format, let message):
        self.init(kind: "corruptData", format: format, text: message)
      case .truncatedData(let format): self.init(kind: "truncatedData", format: format)
      case .imageTooLarge(let width, let height, let maximum):
        self.init(kind: "imageTooLarge", numbers: [width, height, maximum])
      case .dimensionTooLarge(let width, let height, let maximum):
        self.init(kind: "dimensionTooLarge", numbers: [width, height, maximum])
      case .decodingMemoryTooLarge(let count, let maximum):
        self.init(kind: "decodingMemoryTooLarge", numbers: [count, maximum])
      case .inputTooLarge(let count, let maximum):
        self.init(kind: "inputTooLarge", numbers: [count, maximum])
      case .invalidArgument(let message): self.init(kind: "invalidArgument", text: message)
      case .outOfMemory: self.init(kind: "outOfMemory")
      case .encodingFailed(let message): self.init(kind: "encodingFailed", text: message)
      case .decoderUnavailable(let format, let reason):
        self.init(kind: "decoderUnavailable", format: format, text: reason)
      case .isolatedDecodingFailed: self.init(kind: "outOfMemory")  // never raised in a worker
      }
    }

    /// The error this failure describes; `nil` when it is not one a worker can send.
    package var error: ImagingError? {
      let n = numbers
      switch (kind, format, n.count, text) {
      case ("emptyInput", _, 0, _): return .emptyInput
      case ("unsupportedFormat", _, 0, let text?): return .unsupportedFormat(detected: text)
      case ("corruptData", let format?, 0, let text?):
        return .corruptData(format: format, message: text)
      case ("truncatedData", let format?, 0, _): return .truncatedData(format: format)
      case ("imageTooLarge", _, 3, _):
        return .imageTooLarge(width: n[0], height: n[1], maximumPixelCount: n[2])
      case ("dimensionTooLarge", _, 3, _):
        return .dimensionTooLarge(width: n[0], height: n[1], maximumDimension: n[2])
      case ("decodingMemoryTooLarge", _, 2, _):
        return .decodingMemoryTooLarge(byteCount: n[0], maximumByteCount: n[1])
      case ("inputTooLarge", _, 2, _):
        return .inputTooLarge(byteCount: n[0], maximumByteCount: n[1])
      case ("invalidArgument", _, 0, let text?): return .invalidArgument(text)
      case ("outOfMemory", _, 0, _): return .outOfMemory
      case ("encodingFailed", _, 0, let text?): return .encodingFailed(message: text)
      case ("decoderUnavailable", let format?, 0, let text?):
        return .decoderUnavailable(format: format, reason: text)
      default: return nil
      }
    }
  }
#endif
