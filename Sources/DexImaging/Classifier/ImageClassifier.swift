import DexModel
import Foundation
import Logging

/// DexKit's default ``ImageClassifying`` conformance: EfficientNet-Lite0 (ImageNet-1k) running
/// offline on the CPU (oneDNN on Linux, pure Swift elsewhere, see ``ClassifierBackend``),
/// mapped onto ``/DexModel/DexCategory``.
///
/// It reads the pixels of a scan's Pass-0 decode (``classify(_:)``) or decodes bytes through its
/// ``ImageDecoding`` (orientation applied, DCT-scaled to a short side of
/// ``decodingShortSide``), takes the standard centre crop (and, on a plain background, the
/// subject's square: ``ClassifierViews``), runs the network and turns the whole
/// 1000-way distribution into a ``/DexModel/LocalGuess``
/// (``guess(fromDistribution:calibration:hierarchy:minimumConfidence:)``): each category is
/// scored by its best class, corrected for how many classes each category has and calibrated
/// (``ClassifierCalibration``), so that the confidence is the probability that the category is
/// right. The label is that category's best class, with its own probability as
/// ``/DexModel/LocalGuess/labelConfidence``; the name is the most specific group of classes
/// (``ClassifierHierarchy``: "Domestic Cat", "Spaniel") or class the classifier is sure of.
///
/// The bundled weights are loaded on first use and shared; the classifier is a small value that
/// is safe to copy and to call from many tasks at once. Work runs off the caller's executor and
/// stops early when the task is cancelled.
public struct ImageClassifier: ImageClassifying {
  /// Tuning knobs of the guess.
  public struct Configuration: Sendable, Hashable {
    /// How many top classes vote for the category when ``calibration`` is `nil`.
    public var topK: Int
    /// Images whose short side is smaller than this (in pixels) are not classified.
    public var minimumSide: Int
    /// A guess whose category probability is below this is dropped (`nil`).
    public var minimumConfidence: Double
    /// How many cores one classification may use: 1 keeps it on one thread (best throughput
    /// when many photos are classified at once); 2 or more lowers one photo's latency.
    public var threads: Int
    /// The code that runs the network of the bundled model (see ``ClassifierBackend``); a
    /// classifier made on an already loaded model runs that model's backend instead.
    public var backend: ClassifierBackend
    /// The arithmetic asked of the bundled model's network (see ``ClassifierPrecision``):
    /// ``ClassifierPrecision/automatic`` by default, which is ``ClassifierPrecision/int8`` where
    /// oneDNN has VNNI (decided with its own calibration) and ``ClassifierPrecision/float32``
    /// elsewhere; either can be asked for by name. A classifier made on an already loaded model
    /// runs that model's precision instead.
    public var precision: ClassifierPrecision
    /// How the whole class distribution becomes a calibrated category probability; `nil` keeps
    /// the uncalibrated top-``topK`` vote of ``ImageClassifier/guess(from:minimumConfidence:)``.
    /// ``ClassifierCalibration/fitted`` (the default) stands for the calibration fitted for the
    /// precision the model runs in (``ClassifierModel/calibration``): the int8 network moves
    /// its logits a little, and has constants of its own. The guess runs the views the
    /// calibration was fitted on (``ClassifierCalibration/views``):
    /// ``ClassifierCalibration/fittedCentreCrop`` keeps every guess to one network pass (a
    /// server's throughput), where ``ClassifierCalibration/fitted`` adds a second on plain
    /// backgrounds.
    public var calibration: ClassifierCalibration?
    /// The groups of classes a calibrated guess may be named after ("Domestic Cat", "Dog");
    /// `nil` leaves ``/DexModel/LocalGuess/name`` unset, so that entries are named by the label
    /// alone.
    public var hierarchy: ClassifierHierarchy?

    /// Creates a configuration; the defaults suit phone photos.
    public init(
      topK: Int = 5, minimumSide: Int = 16, minimumConfidence: Double = 0.1, threads: Int = 1,
      backend: ClassifierBackend = .automatic, precision: ClassifierPrecision = .automatic,
      calibration: ClassifierCalibration? = .fitted, hierarchy: ClassifierHierarchy? = .bundled
    ) {
      self.backend = backend
      self.precision = precision
      self.calibration = calibration
      self.hierarchy = hierarchy
      self.topK = max(1, topK)
      self.minimumSide = max(1, minimumSide)
      self.minimumConfidence = minimumConfidence.isFinite ? minimumConfidence : 0
      self.threads = min(max(1, threads), 64)
    }
  }

  /// The short side ``classify(imageData:)`` decodes to before the centre crop and the resample
  /// to 224: the cheapest DCT-scaled decode that still holds the crop at full detail.
  public static let decodingShortSide = 256

  private let loadModel: @Sendable () throws(ClassifierError) -> ClassifierModel
  /// The decoder that turns encoded bytes into pixels.
  public let decoder: any ImageDecoding
  /// The guess's tuning.
  public let configuration: Configuration
  private let logger: Logger

  /// A classifier on the bundled EfficientNet-Lite0 weights (loaded lazily on the first call).
  ///
  /// - Parameters:
  ///   - decoder: turns encoded bytes into pixels.
  ///   - configuration: the guess's tuning.
  ///   - logger: where failures to guess are logged (debug level) and, when this classifier is
  ///     the first to load the bundled model, which backend runs it; never receives pixels.
  public init(
    decoder: any ImageDecoding, configuration: Configuration = Configuration(),
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) {
    let backend = configuration.backend
    let precision = configuration.precision
    self.loadModel = { () throws(ClassifierError) in
      try ClassifierModel.bundled(backend: backend, precision: precision, logger: logger)
    }
    self.decoder = decoder
    self.configuration = configuration
    self.logger = logger
  }

  /// A classifier on an already loaded model (for example weights loaded from a file URL).
  ///
  /// - Parameters:
  ///   - model: the loaded network and labels.
  ///   - decoder: turns encoded bytes into pixels.
  ///   - configuration: the guess's tuning.
  ///   - logger: where failures to guess are logged (debug level); never receives pixels.
  public init(
    model: ClassifierModel, decoder: any ImageDecoding,
    configuration: Configuration = Configuration(),
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) {
    self.loadModel = { model }
    self.decoder = decoder
    self.configuration = configuration
    self.logger = logger
  }

  /// Decodes `imageData` and classifies it; `nil` (logged) on any failure.
  public func classify(imageData: Data) async -> LocalGuess? {
    do {
      return try await guess(for: await decodedImage(imageData))
    } catch {
      logger.debug("no local guess", metadata: ["reason": "\(error)"])
      return nil
    }
  }

  /// Classifies the pixels of a scan's Pass-0 decode; decodes ``DownscaledImage/jpegData`` only
  /// when the downscaler kept no pixels. `nil` (logged) on any failure.
  public func classify(_ image: DownscaledImage) async -> LocalGuess? {
    guard var pixels = image.pixels else { return await classify(imageData: image.jpegData) }
    #if os(Linux) && SystemImageCodecs
      // The scan's pixels are larger than the crop needs (1024 px by default): shrink them to
      // the short side a decode would give, with the vectorised Lanczos resampler, so that the
      // preprocessor's bicubic filter works at about 1:1 instead of 3:1.
      if min(pixels.width, pixels.height) > Self.decodingShortSide,
        let smaller = try? pixels.resampled(shortSide: Self.decodingShortSide)
      {
        pixels = smaller
      }
    #endif
    do {
      return try await guess(for: pixels)
    } catch {
      logger.debug("no local guess", metadata: ["reason": "\(error)"])
      return nil
    }
  }

  /// Decodes `imageData` and returns its best `limit` labels; empty (logged) on any failure.
  public func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
    do {
      return try await rankedLabels(for: await decodedImage(imageData), limit: limit)
    } catch {
      logger.debug("no ranked labels", metadata: ["reason": "\(error)"])
      return []
    }
  }

  /// Classifies already decoded pixels into a guess; `nil` when nothing is confident enough.
  ///
  /// - Throws: ``ClassifierError`` when the model cannot load, the image is too small, or the
  ///   task is cancelled.
  public func guess(for image: RGBImage) async throws(ClassifierError) -> LocalGuess? {
    guard let calibration = configuration.calibration else {
      let ranked = try await rankedLabels(for: image, limit: configuration.topK)
      return Self.guess(from: ranked, minimumConfidence: configuration.minimumConfidence)
    }
    let distribution = try await rankedLabels(for: image, limit: .max)
    let own = try loadModel().calibration(for: calibration)
    return Self.guess(
      fromDistribution: distribution, calibration: own,
      hierarchy: configuration.hierarchy, minimumConfidence: configuration.minimumConfidence)
  }

  /// The best `limit` labels for already decoded pixels, best first: from the views the
  /// configured calibration was fitted on (``ClassifierCalibration/views``; the centre crop alone
  /// without a calibration), so that they are the distribution the guess is made from.
  ///
  /// - Throws: ``ClassifierError`` when the model cannot load, the image is too small, or the
  ///   task is cancelled.
  public func rankedLabels(
    for image: RGBImage, limit: Int
  ) async throws(ClassifierError)
    -> [ClassificationLabel]
  {
    guard min(image.width, image.height) >= configuration.minimumSide else {
      throw .imageTooSmall(
        width: image.width, height: image.height, minimumSide: configuration.minimumSide)
    }
    if Task.isCancelled { throw .cancelled }
    // Off Swift's cooperative pool (see InferenceQueue): the network holds its thread for the
    // whole inference.
    let (loadModel, threads) = (loadModel, configuration.threads)
    let calibration = configuration.calibration
    return try await InferenceQueue.run { isCancelled throws(ClassifierError) in
      let model = try loadModel()
      let views = calibration.map { model.calibration(for: $0).views } ?? .centreCrop
      return try model.rankedLabels(
        for: image, limit: limit, views: views, threads: threads,
        isCancelled: isCancelled)
    }
  }

  /// Folds a few ranked labels into one guess, uncalibrated: probability summed per category, the
  /// heaviest category wins (ties go to the better-ranked one), its best label is shown with its
  /// own probability as ``/DexModel/LocalGuess/labelConfidence``, and the confidence is the
  /// category's summed probability. `nil` for an empty list or a winning probability below
  /// `minimumConfidence`.
  ///
  /// The classifier's own guess uses ``guess(fromDistribution:calibration:hierarchy:minimumConfidence:)``,
  /// whose confidence is a calibrated probability; this rule remains for hosts that only have a
  /// short ranked list (and for a ``Configuration/calibration`` of `nil`).
  public static func guess(
    from ranked: [ClassificationLabel], minimumConfidence: Double = 0
  )
    -> LocalGuess?
  {
    var totals: [DexCategory: Double] = [:]
    var order: [DexCategory] = []
    for label in ranked {
      if totals[label.category] == nil { order.append(label.category) }
      totals[label.category, default: 0] += label.confidence
    }
    var best: (category: DexCategory, total: Double)?
    for category in order {
      let total = totals[category] ?? 0
      if best == nil || total > (best?.total ?? 0) { best = (category, total) }
    }
    guard let best, best.total >= minimumConfidence,
      let top = ranked.first(where: { $0.category == best.category })
    else { return nil }
    return LocalGuess(
      category: best.category, label: ClassifierLabelTable.cleanedLabel(top.label),
      confidence: best.total, labelConfidence: top.confidence)
  }

  /// Decides the category from a whole class distribution (every class of the network with its
  /// probability, in any order) and calibrates its confidence with `calibration` (see
  /// ``ClassifierCalibration``).
  ///
  /// The most probable category after calibration wins (ties go to the category of the more
  /// probable class); its most probable class is the label, and that class's probability is the
  /// ``/DexModel/LocalGuess/labelConfidence``. With a `hierarchy`, the guess's
  /// ``/DexModel/LocalGuess/name`` is the most specific of that class and the category's nodes
  /// whose probability reaches ``ClassifierCalibration/namingThreshold`` (empty when none does).
  /// `nil` for an empty distribution or a calibrated probability below `minimumConfidence`.
  public static func guess(
    fromDistribution distribution: [ClassificationLabel],
    calibration: ClassifierCalibration = .fitted, hierarchy: ClassifierHierarchy? = .bundled,
    minimumConfidence: Double = 0
  ) -> LocalGuess? {
    let probabilities = calibration.categoryProbabilities(distribution)
    var best: (category: DexCategory, probability: Double, top: ClassificationLabel)?
    var topOfCategory: [DexCategory: ClassificationLabel] = [:]
    for label in distribution
    where label.confidence > (topOfCategory[label.category]?.confidence ?? -1) {
      topOfCategory[label.category] = label
    }
    for (category, probability) in probabilities {
      guard let top = topOfCategory[category] else { continue }
      if let current = best,
        probability < current.probability
          || (probability == current.probability && top.confidence <= current.top.confidence)
      {
        continue
      }
      best = (category, probability, top)
    }
    guard let best, best.probability >= minimumConfidence else { return nil }
    let named = hierarchy?.specificName(
      in: distribution, category: best.category, categoryConfidence: best.probability,
      threshold: calibration.namingThreshold)
    return LocalGuess(
      category: best.category, label: ClassifierLabelTable.cleanedLabel(best.top.label),
      confidence: best.probability, labelConfidence: best.top.confidence,
      name: hierarchy == nil ? nil : named?.name ?? "", nameConfidence: named?.confidence)
  }

  private func decodedImage(_ data: Data) async throws -> RGBImage {
    guard !data.isEmpty else { throw ClassifierError.decodingFailed("no bytes") }
    do {
      return try await decoder.decodePixels(
        from: data, target: .minimumShortSide(Self.decodingShortSide), options: DecodingOptions())
    } catch {
      throw ClassifierError.decodingFailed("\(error)")
    }
  }
}
