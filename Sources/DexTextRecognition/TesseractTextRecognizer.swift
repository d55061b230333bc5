#if os(Linux) && Tesseract
  import DexImaging
  import Foundation
  import Logging

  /// Reads printed text in a photo on device with Tesseract 5: DexKit's ``/DexImaging/TextRecognizing``
  /// conformance on Linux.
  ///
  /// It exists so that a plant tag's name, a card's title or a receipt's lines can be read without
  /// any network, from the pixels the scan has already decoded (no second decode). It wraps the
  /// system's Tesseract (Debian `libtesseract-dev` and a language pack such as `tesseract-ocr-eng`)
  /// through a small C shim, and keeps to ``/DexImaging/TextRecognitionOptions``' bounds: images over
  /// ``/DexImaging/TextRecognitionOptions/maximumPixelCount`` are refused before any work, the recognition stops
  /// at ``/DexImaging/TextRecognitionOptions/timeout`` with ``/DexImaging/TextRecognitionError/timedOut(after:)``, and a
  /// cancelled task ends with `CancellationError`. Both answer at once: the timeout counts from
  /// the call (waiting for an engine and loading it included), and the caller never waits on
  /// Tesseract, which is only told to stop (it checks between words, so its layout analysis may
  /// run on); its engine returns to the pool when it really has. The blocking work runs on a
  /// dispatch queue of its own, never on Swift's cooperative threads.
  ///
  /// Tesseract's own debug output is sent to `/dev/null`; what matters is logged through
  /// ``logger``. Copies share one pool of initialised engines: at most
  /// ``maximumConcurrentRecognitions`` per language list (further calls queue, first in first
  /// out, and leave the queue when cancelled or timed out), two kept idle, so loading the
  /// language data is paid once, not per photo.
  public struct TesseractTextRecognizer: TextRecognizing {
    /// The tessdata directory in use (holding `eng.traineddata` and friends), or `nil` when none
    /// was found: then every call ends with ``/DexImaging/TextRecognitionError/engineUnavailable(detail:)``.
    public let dataDirectory: String?
    /// Where the recognizer logs (engine start, refusals, failures, timings at debug level).
    public var logger: Logger
    /// The most recognitions that run at once per data directory and language list (each on an
    /// engine of its own, tens of megabytes and a thread); further calls wait in line, first come
    /// first served, within their own timeout.
    public var maximumConcurrentRecognitions: Int { pool.maximumEnginesPerKey }
    /// The executable that test-loads language data before this process loads it (Linux), or
    /// `nil` when none was found: then data is refused with
    /// ``/DexImaging/TextRecognitionError/engineUnavailable(detail:)``.
    ///
    /// Tesseract ends the whole process on much of what a damaged `.traineddata` holds; the
    /// probe, `dex-traineddata-probe`, meets it first, in a process of its own (spawned and
    /// exec'd, never a fork of the host) under memory, CPU and time limits. Its verdict is kept
    /// per file for the life of the process. Elsewhere than Linux no probe runs.
    public let probeExecutable: String?
    /// The probe's file name, looked for beside the host's executable.
    public static let probeExecutableName = "dex-traineddata-probe"
    let pool: TesseractEnginePool

    /// Creates a recognizer that reads its language data from `dataDirectory`, or, when `nil`,
    /// from the first of `TESSDATA_PREFIX` and the usual system places (Debian's
    /// `/usr/share/tesseract-ocr/5/tessdata` among them) that holds a `.traineddata` file.
    ///
    /// `maximumConcurrentRecognitions` (at least 1; by default the number of active processors)
    /// caps the engines per language list, those whose caller gave up but whose Tesseract run has
    /// not returned yet included. `probeExecutable` is the language-data probe
    /// (``probeExecutable``); by default ``probeExecutableName`` beside this process's
    /// executable. Nothing is loaded here: the first recognition starts the engine.
    public init(
      dataDirectory: String? = nil, logger: Logger = Logger(label: "dexkit.textrecognition"),
      maximumConcurrentRecognitions: Int = ProcessInfo.processInfo.activeProcessorCount,
      probeExecutable: String? = nil
    ) {
      self.init(
        dataDirectory: dataDirectory, logger: logger,
        pool: TesseractEnginePool(maximumEnginesPerKey: maximumConcurrentRecognitions),
        probeExecutable: probeExecutable)
    }

    /// A recognizer over `pool` (tests inject a pool whose engine factory they control).
    init(
      dataDirectory: String?, logger: Logger, pool: TesseractEnginePool,
      probeExecutable: String? = nil
    ) {
      self.dataDirectory = dataDirectory ?? Self.defaultDataDirectory()
      self.logger = logger
      self.pool = pool
      self.probeExecutable = probeExecutable ?? Self.defaultProbeExecutable()
    }

    /// Recognises the printed text in `image` (upright RGB8 pixels), line by line in reading
    /// order, keeping the lines whose confidence reaches
    /// ``/DexImaging/TextRecognitionOptions/minimumConfidence``.
    ///
    /// - Throws: ``/DexImaging/TextRecognitionError`` for refused options or images, missing data, a timeout
    ///   or an engine failure; `CancellationError` when the task is cancelled.
    public func recognizeText(
      in image: RGBImage, options: TextRecognitionOptions
    ) async throws
      -> RecognizedText
    {
      try Self.validate(options)
      let pixelCount = image.width.multipliedReportingOverflow(by: image.height)
      guard !pixelCount.overflow, pixelCount.partialValue <= options.maximumPixelCount else {
        logger.info(
          "Text recognition refused an image over the pixel limit",
          metadata: [
            "width": "\(image.width)", "height": "\(image.height)",
            "maximumPixelCount": "\(options.maximumPixelCount)",
          ])
        throw TextRecognitionError.imageTooLarge(
          width: image.width, height: image.height, maximumPixelCount: options.maximumPixelCount)
      }
      guard image.width <= Self.maxSide, image.height <= Self.maxSide else {
        throw TextRecognitionError.recognitionFailed(
          "Tesseract reads images up to \(Self.maxSide) pixels a side; this one is \(image.width)×\(image.height)"
        )
      }
      try Task.checkCancellation()
      guard options.timeout > .zero else {
        throw TextRecognitionError.timedOut(after: options.timeout)
      }
      let key = try engineKey(for: options)
      // Tesseract refuses images smaller than this as "too small to scan"; they hold no text.
      guard image.width >= Self.minSide, image.height >= Self.minSide else {
        return RecognizedText(lines: [])
      }

      let clock = ContinuousClock()
      let start = clock.now
      let deadline = start + options.timeout
      let outcome = FirstAnswer<Result<[RecognizedTextLine], TesseractFailure>>()
      let pool = self.pool
      let pageSegmentationMode = options.detectsOrientation ? Self.psmAutoOSD : Self.psmAuto
      // The work owns the engine until Tesseract really returns, even when the caller has been
      // answered already (timeout, cancellation): only then does the engine go back to the pool.
      let work = Task {
        outcome.settle(
          await Self.run(
            image, key: key, pageSegmentationMode: pageSegmentationMode, deadline: deadline,
            pool: pool))
      }
      let result = await outcome.wait(
        until: deadline, timedOut: .failure(.timedOut), cancelled: .failure(.cancelled))
      // Tells Tesseract to stop when the caller was answered first; a no-op once it has returned.
      work.cancel()
      let elapsed = clock.now - start
      switch result {
      case .success(let lines):
        let kept = lines.filter { $0.confidence >= options.minimumConfidence }
        logger.debug(
          "Recognised text",
          metadata: [
            "lines": "\(kept.count)", "dropped": "\(lines.count - kept.count)",
            "width": "\(image.width)", "height": "\(image.height)", "elapsed": "\(elapsed)",
          ])
        return RecognizedText(lines: kept)
      case .failure(.cancelled):
        logger.debug("Text recognition cancelled", metadata: ["elapsed": "\(elapsed)"])
        throw CancellationError()
      case .failure(.timedOut):
        logger.info(
          "Text recognition timed out",
          metadata: ["timeout": "\(options.timeout)", "elapsed": "\(elapsed)"])
        throw TextRecognitionError.timedOut(after: options.timeout)
      case .failure(.failed(let message)):
        logger.warning("Text recognition failed", metadata: ["reason": "\(message)"])
        throw TextRecognitionError.recognitionFailed(message)
      case .failure(.refused(let error)):
        logger.warning("Tesseract could not start", metadata: ["reason": "\(error)"])
        throw error
      }
    }

    /// Waits for an engine, recognises `image` on it until `deadline` and gives the engine back.
    private static func run(
      _ image: RGBImage, key: TesseractEngineKey, pageSegmentationMode: Int32,
      deadline: ContinuousClock.Instant, pool: TesseractEnginePool
    ) async -> Result<[RecognizedTextLine], TesseractFailure> {
      let engine: TesseractEngine
      do {
        engine = try await pool.checkOut(key)
      } catch let error as TextRecognitionError {
        return .failure(.refused(error))
      } catch {
        return .failure(.cancelled)
      }
      let remaining = max(deadline - ContinuousClock.now, .zero)
      guard !Task.isCancelled, let job = TesseractJob(timeoutMilliseconds: milliseconds(remaining))
      else {
        await pool.checkIn(engine)
        return .failure(Task.isCancelled ? .cancelled : .failed("out of memory"))
      }
      let result = await withTaskCancellationHandler {
        await engine.recognize(image, pageSegmentationMode: pageSegmentationMode, job: job)
      } onCancel: {
        job.cancel()
      }
      await pool.checkIn(engine)
      return result
    }

    /// Tesseract's page segmentation modes used here: automatic layout, with or without
    /// orientation and script detection first.
    static let psmAuto: Int32 = 3
    static let psmAutoOSD: Int32 = 1
    /// Tesseract's limits on an image's sides (`MAX_INT16`, and its smallest scannable size).
    static let maxSide = 32_767
    static let minSide = 3

    static func milliseconds(_ duration: Duration) -> Int64 {
      let (seconds, attoseconds) = duration.components
      guard seconds < Int64.max / 1000 - 1 else { return Int64.max / 2 }
      return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
  }
#endif
