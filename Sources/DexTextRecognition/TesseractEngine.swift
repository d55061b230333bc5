#if os(Linux) && Tesseract
  import CDexTextShim
  import DexImaging
  import Dispatch
  import Foundation

  /// One initialised Tesseract handle (`TessBaseAPI`) and the serial queue its blocking calls run
  /// on, so that neither Init nor recognition ever occupies a thread of Swift's cooperative pool.
  ///
  /// A handle is not thread-safe: ``TesseractEnginePool`` lends each engine to one call at a time,
  /// which is what makes the `@unchecked Sendable` sound.
  final class TesseractEngine: @unchecked Sendable {
    /// The pool key: the data directory and the languages joined with `+`.
    let key: TesseractEngineKey
    private let handle: OpaquePointer
    private let queue: DispatchQueue

    private init(key: TesseractEngineKey, handle: OpaquePointer, queue: DispatchQueue) {
      self.key = key
      self.handle = handle
      self.queue = queue
    }

    deinit {
      // Ending a handle frees its models (milliseconds): on the engine's own queue, never on the
      // thread that dropped the last reference (often one of Swift's cooperative threads, when
      // the pool ends an engine beyond its idle cap).
      nonisolated(unsafe) let handle = self.handle
      queue.async { dex_ocr_engine_destroy(handle) }
    }

    /// Loads the language data for `key` on a queue of its own.
    static func make(key: TesseractEngineKey) async throws(TextRecognitionError) -> TesseractEngine
    {
      let queue = DispatchQueue(label: "DexTextRecognition.Tesseract", qos: .userInitiated)
      let outcome: Result<TesseractEngine, TextRecognitionError> = await withCheckedContinuation {
        continuation in
        queue.async {
          var handle: OpaquePointer?
          var message = [CChar](repeating: 0, count: 512)
          let status = dex_ocr_engine_create(
            key.dataDirectory, key.languages, key.probeExecutable, &handle, &message, message.count)
          if ShimStatus(status) == .ok, let handle {
            continuation.resume(
              returning: .success(TesseractEngine(key: key, handle: handle, queue: queue)))
          } else if ShimStatus(status) == .outOfMemory {
            continuation.resume(
              returning: .failure(.recognitionFailed("out of memory starting Tesseract")))
          } else {
            let detail = String(
              decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            continuation.resume(returning: .failure(.engineUnavailable(detail: detail)))
          }
        }
      }
      return try outcome.get()
    }

    /// Recognises `image` on the engine's queue, polling `job` between words.
    ///
    /// Returns the raw lines (confidence 0...1, boxes clamped to the image) in reading order.
    func recognize(
      _ image: RGBImage, pageSegmentationMode: Int32, job: TesseractJob
    ) async -> Result<[RecognizedTextLine], TesseractFailure> {
      await withCheckedContinuation { continuation in
        queue.async { [self] in
          var result = dex_ocr_result(lines: nil, count: 0)
          var message = [CChar](repeating: 0, count: 256)
          let status = image.pixels.withUnsafeBufferPointer { pixels in
            dex_ocr_recognize(
              handle, job.handle, pixels.baseAddress, Int32(image.width), Int32(image.height),
              pageSegmentationMode, &result, &message, message.count)
          }
          defer { dex_ocr_result_free(&result) }
          switch ShimStatus(status) {
          case .ok:
            continuation.resume(returning: .success(Self.lines(of: result, in: image)))
          case .cancelled: continuation.resume(returning: .failure(.cancelled))
          case .timedOut: continuation.resume(returning: .failure(.timedOut))
          case .outOfMemory:
            continuation.resume(returning: .failure(.failed("out of memory")))
          default:
            let text = String(
              decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            continuation.resume(
              returning: .failure(.failed(text.isEmpty ? "status \(status)" : text)))
          }
        }
      }
    }

    private static func lines(of result: dex_ocr_result, in image: RGBImage) -> [RecognizedTextLine]
    {
      guard let base = result.lines else { return [] }
      var lines: [RecognizedTextLine] = []
      lines.reserveCapacity(result.count)
      for index in 0..<result.count {
        let line = base[index]
        guard let pointer = line.text else { continue }
        let text = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { continue }
        let left = min(max(Int(line.left), 0), image.width)
        let top = min(max(Int(line.top), 0), image.height)
        let right = min(max(Int(line.right), left), image.width)
        let bottom = min(max(Int(line.bottom), top), image.height)
        lines.append(
          RecognizedTextLine(
            text: text, confidence: Double(line.confidence) / 100,
            boundingBox: PixelRect(x: left, y: top, width: right - left, height: bottom - top)))
      }
      return lines
    }
  }
#endif
