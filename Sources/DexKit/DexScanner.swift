import DexCloud
import DexImaging
import DexModel
import Foundation
import Logging

/// The two-pass scan flow without any UI: encode once, guess on-device, identify in the cloud,
/// fall back offline.
///
/// `DexScanner` is the portable counterpart of `ScannerViewModel` in the reference app
/// (ShipThatApp's iOS Dex Scanner, the SwiftUI feature whose flow DexKit ports; its code is not
/// part of this repository). It
/// takes a photo's bytes (JPEG, PNG, HEIF/HEIC, AVIF or WebP, any orientation) and
/// 1. decodes, downscales and JPEG-encodes it **once**, off the caller's executor; the decoded
///    pixels feed the on-device pass, the JPEG feeds the cloud pass and persistence, and a
///    thumbnail comes from the same pixels;
/// 2. classifies the pixels on-device and publishes the ``/DexModel/LocalGuess`` at once;
/// 3. asks the cloud with the guess's category as a weak hint, reading its reply as it streams
///    (``/DexCloud/DexVisionServicing/streamIdentification(imageData:categoryHint:deadline:)``)
///    and publishing the fields known so far in phase ``DexScanState/Phase/identifying``;
/// 4. falls back to ``/DexModel/ScanResult/offlineFallback(for:)`` when the cloud fails and a
///    guess exists, and fails with a ``DexScanError`` when neither pass produced anything.
///
/// With a text recognizer (``init(classifier:visionService:textRecognizer:downscaler:configuration:logger:)``,
/// for example DexTextRecognition's `TesseractTextRecognizer`) it also reads the printed text
/// in the same pixels, concurrently with passes 1 and 2, and keeps it on the result
/// (``DexScanState/recognizedText``, then ``/DexModel/DexEntry/recognizedText``); a failed text
/// pass is reported beside the result and never fails the scan.
///
/// Watch it happen with ``scan(_:)``, an `AsyncStream` of ``DexScanState`` snapshots
/// (capturing → analyzing → identifying, as the name and then the other fields arrive → result
/// or failed), or await the outcome with ``run(_:)``. Every
/// engine is injected, so hosts swap in Core ML, Vision or their own backend without touching
/// the flow. The scanner builds entries (``DexScanState/makeEntry(id:discoveredAt:matcher:)``) but never
/// saves them: persistence belongs to the host.
public struct DexScanner: Sendable {
  /// Tuning for one scanner.
  public struct Configuration: Sendable, Hashable {
    /// How Pass 0 decodes and encodes: size, JPEG quality, chroma subsampling, decoding limits
    /// and the shrink-on-load reducing gap.
    public var encoding: DownscaleOptions
    /// How the optional text pass reads the photo (languages, minimum confidence, its own
    /// timeout and pixel limit); used only when the scanner has a text recognizer. Its timeout
    /// is clamped to ``cloudTimeout`` (the scan's budget, counted from the start of the text
    /// pass): past it the scan returns with ``DexScanState/textRecognitionError`` set to
    /// `.timedOut` and cancels the pass without waiting for it.
    public var textRecognition: TextRecognitionOptions = TextRecognitionOptions()
    /// The cloud pass's one deadline, counted from when it starts: the vision service's time
    /// budget for every attempt and retry wait (``/DexCloud/DexVisionService`` hands it to
    /// ``/DexCloud/ApiClient`` as the call's budget), and the most the scanner waits for any
    /// service. Reaching it ends the cloud pass with ``DexScanError/timedOut``; the scan then
    /// falls back to the local guess when there is one. Bounds every scan.
    public var cloudTimeout: Duration

    /// The longest side of the encoded JPEG, in pixels.
    public var maximumDimension: Int {
      get { encoding.maximumDimension }
      set { encoding.maximumDimension = newValue }
    }

    /// JPEG quality in `0...1` for the single encode.
    public var jpegQuality: Double {
      get { encoding.quality }
      set { encoding.quality = newValue }
    }

    /// The longest side of the thumbnail made from the same decode
    /// (``DexScanState/thumbnailData``); `nil` makes none.
    public var maximumThumbnailDimension: Int? {
      get { encoding.maximumThumbnailDimension }
      set { encoding.maximumThumbnailDimension = newValue }
    }

    /// The default ``cloudTimeout``: two minutes, the client's per-request timeout
    /// (``/DexCloud/DexCloudConfiguration/requestTimeout``), so a first attempt may use it all.
    public static let defaultCloudTimeout: Duration = .seconds(120)

    /// Creates a configuration; the defaults match the reference app (1024 px, quality 0.8),
    /// add a 256 px thumbnail for grids, and give the cloud pass ``defaultCloudTimeout``.
    public init(
      maximumDimension: Int = 1024, jpegQuality: Double = 0.8,
      maximumThumbnailDimension: Int? = 256,
      cloudTimeout: Duration = Configuration.defaultCloudTimeout
    ) {
      self.encoding = DownscaleOptions(
        maximumDimension: maximumDimension, quality: jpegQuality,
        maximumThumbnailDimension: maximumThumbnailDimension)
      self.cloudTimeout = cloudTimeout
    }

    /// Creates a configuration with full control over Pass 0.
    public init(
      encoding: DownscaleOptions, cloudTimeout: Duration = Configuration.defaultCloudTimeout
    ) {
      self.encoding = encoding
      self.cloudTimeout = cloudTimeout
    }
  }

  private let classifier: any ImageClassifying
  private let visionService: (any DexVisionServicing)?
  private let textRecognizer: (any TextRecognizing)?
  private let downscaler: any ImageDownscaling
  private let configuration: Configuration
  private let logger: Logger

  /// Creates a scanner from explicit engines (on Apple platforms, bring an ImageIO-based
  /// downscaler and, for example, a Vision or Core ML classifier).
  ///
  /// - Parameters:
  ///   - classifier: the on-device pass.
  ///   - visionService: the cloud pass; `nil` scans fully offline (every result is the
  ///     offline entry built from the local guess).
  ///   - textRecognizer: an optional text pass (for example DexTextRecognition's
  ///     `TesseractTextRecognizer`): it reads the Pass-0 pixels while the other passes run and
  ///     its text lands in ``DexScanState/recognizedText`` and the entry; its failure never
  ///     fails the scan. `nil` (the default) reads no text.
  ///   - downscaler: decodes, orients, downscales and encodes the photo.
  ///   - configuration: sizes and time limits.
  ///   - logger: where failures are logged; never receives image bytes or secrets.
  public init(
    classifier: any ImageClassifying,
    visionService: (any DexVisionServicing)? = nil,
    textRecognizer: (any TextRecognizing)? = nil,
    downscaler: any ImageDownscaling,
    configuration: Configuration = Configuration(),
    logger: Logger = Logger(label: "dexkit.scanner")
  ) {
    self.classifier = classifier
    self.visionService = visionService
    self.textRecognizer = textRecognizer
    self.downscaler = downscaler
    self.configuration = configuration
    self.logger = logger
  }

  #if os(Linux) && SystemImageCodecs
    /// Creates a scanner with the bundled engines where they exist (Linux): the
    /// EfficientNet-Lite0 classifier and the libjpeg-turbo/libpng downscaler, unless given.
    ///
    /// - Parameters:
    ///   - classifier: the on-device pass; by default the bundled EfficientNet-Lite0 with
    ///     ``/DexImaging/ImageClassifier/Configuration/interactive`` (one scan at a time, each
    ///     inference spread over up to four cores).
    ///   - visionService: the cloud pass; `nil` scans fully offline.
    ///   - textRecognizer: an optional text pass over the Pass-0 pixels; `nil` reads no text.
    ///   - configuration: sizes and time limits.
    ///   - logger: where failures are logged; never receives image bytes or secrets.
    public init(
      classifier: any ImageClassifying = ImageClassifier(configuration: .interactive),
      visionService: (any DexVisionServicing)? = nil,
      textRecognizer: (any TextRecognizing)? = nil,
      configuration: Configuration = Configuration(),
      logger: Logger = Logger(label: "dexkit.scanner")
    ) {
      self.init(
        classifier: classifier, visionService: visionService, textRecognizer: textRecognizer,
        downscaler: ImageDownscaler(), configuration: configuration, logger: logger)
    }
  #endif

  /// Scans a photo and publishes each phase as it happens.
  ///
  /// The stream yields a `.capturing` state, an `.analyzing` state (then another once the
  /// local guess is in), an `.identifying` state each time more of the cloud's reply is known
  /// (a service that streams), and ends with `.result` or `.failed`. Cancelling the consuming task,
  /// or dropping the stream, cancels the scan.
  public func scan(_ photo: Data) -> AsyncStream<DexScanState> {
    let (stream, continuation) = AsyncStream.makeStream(of: DexScanState.self)
    let task = Task {
      let final = await perform(photo) { continuation.yield($0) }
      continuation.yield(final)
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// Scans a photo and returns the final state (`.result` or `.failed`).
  public func run(_ photo: Data) async -> DexScanState {
    await perform(photo) { _ in }
  }

  private func perform(
    _ photo: Data, publish: @escaping @Sendable (DexScanState) -> Void
  ) async -> DexScanState {
    var state = DexScanState()
    publish(state)

    // Pass 0: decode once, off the caller's executor. The pixels, the JPEG and the thumbnail
    // all come from this one decode.
    let image: DownscaledImage
    do {
      image = try await downscaler.downscale(photo, options: configuration.encoding)
    } catch let error as ImagingError {
      logger.error("The photo could not be read", metadata: ["error": "\(error)"])
      return state.failing(.unreadableImage(error))
    } catch {
      // The only other error is cancellation: the caller's, not a fault in the photo.
      return state.failing(.cancelled)
    }
    state.imageData = image.jpegData
    state.thumbnailData = image.thumbnailJPEG
    state.phase = .analyzing
    publish(state)
    if Task.isCancelled { return state.failing(.cancelled) }

    // The optional text pass reads the same pixels while the other passes run. It gets the
    // scan's budget at most (`cloudTimeout`, from now): past it the scan answers without the
    // text and cancels the pass, never waiting for a recognizer that does not stop at once.
    guard let textRecognizer, let pixels = image.pixels else {
      return await identify(image, state: state, publish: publish)
    }
    var textOptions = configuration.textRecognition
    textOptions.timeout = min(max(textOptions.timeout, .zero), configuration.cloudTimeout)
    let textDeadline = ContinuousClock.now + textOptions.timeout
    let text = FirstAnswer<Result<RecognizedText, TextRecognitionError>>()
    let textTask = Task { [textOptions] in
      text.settle(await readText(pixels, with: textRecognizer, options: textOptions))
    }
    defer { textTask.cancel() }
    var final = await identify(image, state: state, publish: publish)
    guard final.phase == .result else { return final }
    let answer = await text.wait(
      until: textDeadline, timedOut: .failure(.timedOut(after: textOptions.timeout)),
      cancelled: .failure(.recognitionFailed("the scan was cancelled")))
    switch answer {
    case .success(let recognized): final.recognizedText = recognized
    case .failure(let error): final.textRecognitionError = error
    }
    return final
  }

  /// The text pass: never throws, so that its failure only shows in the state.
  private func readText(
    _ pixels: RGBImage, with recognizer: any TextRecognizing, options: TextRecognitionOptions
  ) async -> Result<RecognizedText, TextRecognitionError> {
    do {
      return .success(try await recognizer.recognizeText(in: pixels, options: options))
    } catch let error as TextRecognitionError {
      logger.warning("Text recognition failed", metadata: ["error": "\(error)"])
      return .failure(error)
    } catch {
      return .failure(.recognitionFailed("\(error)"))
    }
  }

  /// Passes 1 and 2 on the decoded photo.
  private func identify(
    _ image: DownscaledImage, state initial: DexScanState,
    publish: @escaping @Sendable (DexScanState) -> Void
  ) async -> DexScanState {
    var state = initial
    let jpeg = image.jpegData

    // Pass 1: instant on-device guess, from the decoded pixels.
    let guess = await classifier.classify(image)
    state.localGuess = guess
    publish(state)
    if Task.isCancelled { return state.failing(.cancelled) }

    // Pass 2: the cloud, with one deadline: the service's time budget, and the scanner's own
    // bound for services that do not stop by themselves.
    guard let visionService else {
      guard let guess else {
        return state.failing(
          .nothingIdentified("No backend is configured and the on-device pass found nothing."))
      }
      return state.succeeding(.offlineFallback(for: guess), offline: true)
    }
    let deadline = ContinuousClock.now + configuration.cloudTimeout
    // Partial results are published until the pass ends, never after the final state.
    let partials = PartialPublisher(state: state, publish: publish)
    defer { partials.close() }
    do {
      let result = try await withDeadline(deadline) {
        var final: ScanResult?
        let updates = visionService.streamIdentification(
          imageData: jpeg, categoryHint: guess?.category, deadline: deadline)
        for try await update in updates {
          switch update {
          case .partial(let partial): partials.publish(partial)
          case .complete(let result): final = result
          }
        }
        // A host's own service is held to what the bundled one checks: an entry that names
        // nothing (a placeholder "Unknown") is a failed pass, which takes the fallback path,
        // and a confidence outside 0...1 is read as the tolerant parser reads one.
        guard var final, final.identifiesSomething else {
          throw ScanResult.ParseError.noIdentification
        }
        final.confidence = ScanResult.unitConfidence(final.confidence)
        return final
      }
      partials.close()
      state.partialResult = partials.latest
      return state.succeeding(result, offline: false)
    } catch {
      partials.close()
      state.partialResult = partials.latest
      if Task.isCancelled { return state.failing(.cancelled) }
      logger.error("Cloud identification failed", metadata: ["error": "\(error)"])
      let failure = DexScanError(cloudFailure: error)
      guard let guess else { return state.failing(failure) }
      state.cloudError = failure
      return state.succeeding(.offlineFallback(for: guess), offline: true)
    }
  }
}

/// Runs `operation`, throwing ``DexScanError/timedOut`` if it has not finished at `deadline`
/// and ``DexScanError/cancelled`` as soon as the calling task is cancelled.
///
/// The operation runs in a task of its own that is cancelled then and left to end by itself:
/// a task group would wait for it, so a service that ignores cancellation would hold the scan
/// past its deadline.
func withDeadline<Value: Sendable>(
  _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  let answer = FirstAnswer<Result<Value, any Error>>()
  let work = Task {
    do {
      answer.settle(.success(try await operation()))
    } catch {
      answer.settle(.failure(error))
    }
  }
  defer { work.cancel() }
  return try await answer.wait(
    until: deadline, timedOut: .failure(DexScanError.timedOut),
    cancelled: .failure(DexScanError.cancelled)
  ).get()
}
