import Foundation
import Logging

/// A loaded network together with the labels of its outputs: everything ``ImageClassifier``
/// needs to turn pixels into ranked labels.
///
/// Immutable and `Sendable`: load it once and share it. ``bundled()`` loads the weights shipped
/// with DexImaging on first use and returns the same instance to every caller afterwards.
public final class ClassifierModel: Sendable {
  /// The network (EfficientNet-Lite0, DexImaging's internal engine in `Classifier/Engine`).
  package let network: EfficientNetLite0
  /// One label per network output.
  public let labels: ClassifierLabelTable
  /// How pixels are prepared for the network.
  public let preprocessor: ImagePreprocessor
  /// The backend that runs the network: ``ClassifierBackend/oneDNN`` or
  /// ``ClassifierBackend/portable`` (never ``ClassifierBackend/automatic``).
  public var backend: ClassifierBackend { network.backend }
  /// The instruction set the backend's kernels use, chosen once per process for this processor
  /// (oneDNN's names, such as `avx512_core_vnni`; the `ONEDNN_MAX_CPU_ISA` environment variable
  /// caps it); `nil` on the portable path. For logs and benchmarks.
  public var instructionSet: String? { network.instructionSet }
  /// The arithmetic the network runs in (never ``ClassifierPrecision/automatic``): by default
  /// ``ClassifierPrecision/int8`` on oneDNN where the processor has VNNI,
  /// ``ClassifierPrecision/float32`` elsewhere; decided when the model loads.
  public var precision: ClassifierPrecision { network.precision }
  /// The calibration fitted on this model's own logits: ``ClassifierCalibration/fittedInt8``
  /// when the network runs in int8, ``ClassifierCalibration/fitted`` otherwise. What
  /// ``ImageClassifier`` uses with the default ``ImageClassifier/Configuration/calibration``.
  public var calibration: ClassifierCalibration {
    precision == .int8 ? .fittedInt8 : .fitted
  }

  /// `configured` as this model runs it: ``ClassifierCalibration/fitted`` stands for the
  /// calibration fitted for the model's own precision (``calibration``), and
  /// ``ClassifierCalibration/fittedCentreCrop`` for int8's own fit when the network runs in int8
  /// (that fit is the centre crop's too); any other as given.
  func calibration(for configured: ClassifierCalibration) -> ClassifierCalibration {
    if configured == .fitted { return calibration }
    if configured == .fittedCentreCrop, precision == .int8 { return .fittedInt8 }
    return configured
  }

  /// Pairs a network with its labels, and logs (once, here) which backend, precision and views
  /// (those of its ``calibration``) run it:
  /// at debug level, and at notice level when oneDNN was wanted but the network fell back, or
  /// ``ClassifierPrecision/int8`` was asked for and not granted.
  ///
  /// - Throws: ``ClassifierError/invalidLabels(_:)`` if the table does not have one row per output.
  package init(
    network: EfficientNetLite0, labels: ClassifierLabelTable,
    preprocessor: ImagePreprocessor = ImagePreprocessor(),
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) throws(ClassifierError) {
    guard labels.entries.count == network.classCount else {
      throw .invalidLabels(
        "\(labels.entries.count) labels for a network with \(network.classCount) outputs")
    }
    self.network = network
    self.labels = labels
    self.preprocessor = preprocessor
    if let reason = network.fallbackReason {
      logger.notice(
        "oneDNN is unavailable; the classifier runs on the portable path",
        metadata: ["reason": "\(reason)"])
    }
    if network.requestedPrecision == .int8, network.precision != .int8 {
      logger.notice(
        "int8 is not granted here; the classifier runs in float32",
        metadata: ["reason": "\(Self.int8Refusal(network))"])
    }
    var metadata: Logger.Metadata = ["backend": "\(backend.rawValue)"]
    if let isa = network.instructionSet { metadata["isa"] = "\(isa)" }
    metadata["precision"] = "\(network.precision.rawValue)"
    metadata["views"] = "\(calibration.views.rawValue)"
    if let fused = network.fusedBlocks { metadata["fused_blocks"] = "\(fused)" }
    logger.debug("classifier backend", metadata: metadata)
  }

  /// Why a network asked to run int8 runs f32, for the log.
  private static func int8Refusal(_ network: EfficientNetLite0) -> String {
    guard network.backend == .oneDNN, let isa = network.instructionSet else {
      return "the portable path runs float32 only"
    }
    guard EfficientNetLite0.hasInt8Kernels else {
      return "oneDNN's instruction set here (\(isa)) has no VNNI"
    }
    return "the weights have no int8 ranges (EfficientNetLite0.int8.json)"
  }

  /// Loads EfficientNet-Lite0 weights converted by `Scripts/classifier-convert.py` (a JSON
  /// manifest naming a blob in the same directory) and a label table (see
  /// ``ClassifierLabelTable/init(contentsOf:)``) from file URLs, so that a host can ship
  /// retrained weights without rebuilding DexImaging.
  ///
  /// `backend` chooses the code that runs the network (see ``ClassifierBackend``); the graph is
  /// built once, here.
  ///
  /// `precision` chooses the arithmetic: ``ClassifierPrecision/automatic`` (the default) and
  /// ``ClassifierPrecision/int8`` run oneDNN's 8-bit kernels where the processor has VNNI and
  /// the weights have calibrated ranges (`<manifest>.int8.json`, written by
  /// `Scripts/classifier-int8-ranges.py`), 32-bit floats elsewhere;
  /// ``ClassifierPrecision/float32`` always runs 32-bit floats. See ``ClassifierPrecision`` for
  /// what each costs.
  ///
  /// `logger` receives which backend and precision run the network (debug level), and a notice
  /// when oneDNN was wanted but the network fell back, or int8 was asked for and not granted.
  ///
  /// - Throws: ``ClassifierError`` when a file is missing, unreadable or inconsistent.
  public convenience init(
    manifestURL: URL, labelsURL: URL, backend: ClassifierBackend = .automatic,
    precision: ClassifierPrecision = .automatic,
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) throws(ClassifierError) {
    let network = try EfficientNetLite0(
      manifestURL: manifestURL, backend: backend, precision: precision)
    try self.init(
      network: network, labels: ClassifierLabelTable(contentsOf: labelsURL), logger: logger)
  }

  /// The EfficientNet-Lite0 ImageNet model shipped as a resource of DexImaging on the
  /// ``ClassifierBackend/automatic`` backend in the ``ClassifierPrecision/automatic``
  /// precision, loaded once and shared by every caller; thread-safe.
  public static func bundled() throws(ClassifierError) -> ClassifierModel {
    try bundled(backend: .automatic)
  }

  /// The bundled model on `backend` in the ``ClassifierPrecision/automatic`` precision, loaded
  /// once per backend and shared; thread-safe.
  ///
  /// - Parameters:
  ///   - backend: the code that runs the network.
  ///   - logger: receives the backend report of the first load (see
  ///     ``init(manifestURL:labelsURL:backend:precision:logger:)``); later calls return the
  ///     loaded model and log nothing.
  public static func bundled(
    backend: ClassifierBackend,
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) throws(ClassifierError)
    -> ClassifierModel
  {
    try bundled(backend: backend, precision: .automatic, logger: logger)
  }

  /// The bundled model on `backend` in `precision` (see
  /// ``init(manifestURL:labelsURL:backend:precision:logger:)``), loaded once per backend and
  /// precision and shared; thread-safe. For hosts that choose the arithmetic themselves
  /// (``ClassifierPrecision/float32`` for the same logits on every processor).
  ///
  /// - Parameters:
  ///   - backend: the code that runs the network.
  ///   - precision: the arithmetic asked for; ``ClassifierPrecision/automatic`` shares the model
  ///     of the precision it stands for here.
  ///   - logger: receives the backend report of the first load; later calls log nothing.
  public static func bundled(
    backend: ClassifierBackend, precision: ClassifierPrecision,
    logger: Logger = Logger(label: "dexkit.imaging.classifier")
  ) throws(ClassifierError)
    -> ClassifierModel
  {
    try bundledModels.model(
      LoadedModels.Key(
        backend: backend,
        precision: EfficientNetLite0.resolvedPrecision(precision, backend: backend))
    ) { () throws(ClassifierError) -> ClassifierModel in
      guard let manifest = bundledResource("EfficientNetLite0", "json") else {
        throw .missingResource("EfficientNetLite0.json")
      }
      guard let labels = bundledResource("ImageNetLabels", "tsv") else {
        throw .missingResource("ImageNetLabels.tsv")
      }
      return try ClassifierModel(
        manifestURL: manifest, labelsURL: labels, backend: backend, precision: precision,
        logger: logger)
    }
  }

  /// The bundled models loaded so far, one per backend and precision.
  private static let bundledModels = LoadedModels()

  /// Loads each backend's model once, with the logger of the first caller, and remembers the
  /// outcome (a failed load is not retried).
  private final class LoadedModels: @unchecked Sendable {
    private let lock = NSLock()
    struct Key: Hashable {
      var backend: ClassifierBackend
      var precision: ClassifierPrecision
    }
    private var loaded: [Key: Result<ClassifierModel, ClassifierError>] = [:]

    func model(
      _ key: Key,
      load: () throws(ClassifierError) -> ClassifierModel
    ) throws(ClassifierError) -> ClassifierModel {
      lock.lock()
      defer { lock.unlock() }
      if let result = loaded[key] { return try result.get() }
      let result = Result(catching: load)
      loaded[key] = result
      return try result.get()
    }
  }

  /// The URL of a file in DexImaging's bundled classifier resources.
  static func bundledResource(_ name: String, _ ext: String) -> URL? {
    Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "ClassifierResources")
  }

  /// The network's raw scores for `image` (cropped, resampled and normalised first), computed
  /// on `threads` cores.
  public func logits(for image: RGBImage, threads: Int = 1) throws(ClassifierError) -> [Float] {
    try logits(forNetworkInput: preprocessor.networkInput(from: image), threads: threads)
  }

  /// The network's raw scores for an input already prepared by ``preprocessor`` (`224 × 224 ×
  /// 3` values, NHWC), computed on `threads` cores: for hosts that preprocess themselves and
  /// for timing the network alone.
  ///
  /// - Throws: ``ClassifierError/invalidInput(_:)`` for a wrongly sized or non-finite input,
  ///   ``ClassifierError/cancelled`` when the task is cancelled mid-way.
  public func logits(
    forNetworkInput input: [Float], threads: Int = 1
  ) throws(ClassifierError) -> [Float] {
    try network.logits(forNormalizedInput: input, threads: threads)
  }

  /// The network's scores for `image` as a guess reads them: the logits of each of `views`
  /// (``ClassifierViews``), averaged; computed on `threads` cores. One pass for
  /// ``ClassifierViews/centreCrop`` (the same as ``logits(for:threads:)``); a second pass for
  /// ``ClassifierViews/centreCropAndSubject`` when the photo is on a plain background. With two
  /// passes and `threads` above one, the passes run side by side, the cores shared between them
  /// (a pass on half the cores loses less than half its speed), the centre crop's on the calling
  /// thread.
  public func logits(
    for image: RGBImage, views: ClassifierViews, threads: Int = 1
  ) throws(ClassifierError) -> [Float] {
    try logits(for: image, views: views, threads: threads) { Task.isCancelled }
  }

  /// ``logits(for:views:threads:)`` asking `isCancelled` instead of the current task.
  func logits(
    for image: RGBImage, views: ClassifierViews, threads: Int, isCancelled: () -> Bool
  ) throws(ClassifierError) -> [Float] {
    let centreInput = preprocessor.networkInput(from: image)
    guard views == .centreCropAndSubject, let square = preprocessor.subjectSquare(in: image),
      let subjectInput = preprocessor.networkInput(from: image, square: square)
    else {
      return try network.logits(
        forNormalizedInput: centreInput, threads: threads, isCancelled: isCancelled)
    }
    // More threads than cores would only make the two passes' threads take turns.
    let threads = min(threads, ProcessInfo.processInfo.activeProcessorCount)
    let (centre, subject) =
      threads > 1
      ? try sideBySide(centreInput, subjectInput, threads: threads, isCancelled: isCancelled)
      : (
        try network.logits(
          forNormalizedInput: centreInput, threads: threads, isCancelled: isCancelled),
        try network.logits(
          forNormalizedInput: subjectInput, threads: threads, isCancelled: isCancelled)
      )
    return zip(centre, subject).map { ($0 + $1) / 2 }
  }

  /// The logits of `first` on the calling thread and of `second` on one of ``InferenceQueue``'s
  /// second-view queues, at the same time, `threads` (at least 2) shared between them. The
  /// calling thread asks `isCancelled` (which may only be asked there) before the second pass
  /// starts, while it waits for that pass, and once both have ended: a cancellation seen while
  /// they run ends the call with ``ClassifierError/cancelled``, as it would between passes run
  /// one after the other, and reaches the second pass through a flag at its next check (the
  /// portable network checks between layers; a oneDNN pass, a few milliseconds, only as it
  /// starts). The call returns when both passes have ended.
  private func sideBySide(
    _ first: [Float], _ second: [Float], threads: Int, isCancelled: () -> Bool
  ) throws(ClassifierError) -> ([Float], [Float]) {
    if isCancelled() { throw .cancelled }
    let cancelled = CancellationFlag()
    let outcome = SecondPass()
    let done = DispatchGroup()
    let network = self.network
    InferenceQueue.nextBesideQueue().async(group: done) {
      outcome.result = Result { () throws(ClassifierError) in
        try network.logits(
          forNormalizedInput: second, threads: threads / 2, isCancelled: { cancelled.isSet })
      }
    }
    let firstResult = Result { () throws(ClassifierError) in
      try network.logits(
        forNormalizedInput: first, threads: threads - threads / 2,
        isCancelled: {
          guard isCancelled() else { return false }
          cancelled.set()
          return true
        })
    }
    if case .failure = firstResult { cancelled.set() }
    while done.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
      if !cancelled.isSet, isCancelled() { cancelled.set() }
    }
    if case .success = firstResult, isCancelled() { throw .cancelled }
    guard let secondResult = outcome.result else {
      throw .backendFailed("the second view's pass returned nothing")
    }
    return (try firstResult.get(), try secondResult.get())
  }

  /// Where the second pass of ``sideBySide(_:_:threads:isCancelled:)`` leaves its outcome,
  /// read after the wait for it.
  private final class SecondPass: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<[Float], ClassifierError>?  // guarded by `lock`
    var result: Result<[Float], ClassifierError>? {
      get { lock.withLock { stored } }
      set { lock.withLock { stored = newValue } }
    }
  }

  /// All classes ranked by probability (softmax of ``logits(for:views:threads:)``), best first,
  /// at most `limit`.
  public func rankedLabels(
    for image: RGBImage, limit: Int, views: ClassifierViews = .centreCrop, threads: Int = 1
  )
    throws(ClassifierError) -> [ClassificationLabel]
  {
    try rankedLabels(for: image, limit: limit, views: views, threads: threads) {
      Task.isCancelled
    }
  }

  /// ``rankedLabels(for:limit:views:threads:)`` asking `isCancelled` instead of the current task
  /// (for an inference that runs off the task, on ``InferenceQueue``).
  func rankedLabels(
    for image: RGBImage, limit: Int, views: ClassifierViews, threads: Int,
    isCancelled: () -> Bool
  ) throws(ClassifierError) -> [ClassificationLabel] {
    let logits = try logits(for: image, views: views, threads: threads, isCancelled: isCancelled)
    return rankedLabels(logits: logits, limit: limit)
  }

  /// Softmax over `logits`, then the `limit` most probable classes, best first.
  public func rankedLabels(logits: [Float], limit: Int) -> [ClassificationLabel] {
    guard limit > 0, logits.count == labels.entries.count,
      let maxLogit = logits.max(), maxLogit.isFinite
    else { return [] }
    var total = 0.0
    var exps = [Double](repeating: 0, count: logits.count)
    for (i, value) in logits.enumerated() {
      let e = value.isFinite ? Foundation.exp(Double(value - maxLogit)) : 0
      exps[i] = e
      total += e
    }
    let order = exps.indices.sorted { exps[$0] > exps[$1] || (exps[$0] == exps[$1] && $0 < $1) }
    return order.prefix(limit).map { i in
      let entry = labels.entries[i]
      return ClassificationLabel(
        identifier: entry.identifier, label: entry.label, confidence: exps[i] / total,
        category: entry.category)
    }
  }
}
