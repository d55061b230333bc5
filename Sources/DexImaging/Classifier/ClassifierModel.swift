import Foundation

/// A loaded network together with the labels of its outputs: everything ``ImageClassifier``
/// needs to turn pixels into ranked labels.
///
/// Immutable and `Sendable`: load it once and share it. ``bundled()`` loads the weights shipped
/// with DexImaging on first use and returns the same instance to every caller afterwards.
public final class ClassifierModel: Sendable {
  /// The network.
  public let network: EfficientNetLite0
  /// One label per network output.
  public let labels: ClassifierLabelTable
  /// How pixels are prepared for the network.
  public let preprocessor: ImagePreprocessor

  /// Pairs a network with its labels.
  ///
  /// - Throws: ``ClassifierError/invalidLabels(_:)`` if the table does not have one row per output.
  public init(
    network: EfficientNetLite0, labels: ClassifierLabelTable,
    preprocessor: ImagePreprocessor = ImagePreprocessor()
  ) throws(ClassifierError) {
    guard labels.entries.count == network.classCount else {
      throw .invalidLabels(
        "\(labels.entries.count) labels for a network with \(network.classCount) outputs")
    }
    self.network = network
    self.labels = labels
    self.preprocessor = preprocessor
  }

  /// Loads converted weights (see ``EfficientNetLite0/init(manifestURL:arithmetic:)``) and a label table
  /// (see ``ClassifierLabelTable/init(contentsOf:)``) from file URLs.
  public convenience init(manifestURL: URL, labelsURL: URL) throws(ClassifierError) {
    try self.init(
      network: EfficientNetLite0(manifestURL: manifestURL),
      labels: ClassifierLabelTable(contentsOf: labelsURL))
  }

  /// The EfficientNet-Lite0 ImageNet model shipped as a resource of DexImaging, loaded once
  /// (about 19 MB of weights in memory, about 13 MB with int16 1×1 convolutions) and shared by
  /// every caller; thread-safe.
  public static func bundled() throws(ClassifierError) -> ClassifierModel {
    try bundledModel.get()
  }

  private static let bundledModel: Result<ClassifierModel, ClassifierError> = Result {
    () throws(ClassifierError) -> ClassifierModel in
    guard let manifest = bundledResource("EfficientNetLite0", "json") else {
      throw .missingResource("EfficientNetLite0.json")
    }
    guard let labels = bundledResource("ImageNetLabels", "tsv") else {
      throw .missingResource("ImageNetLabels.tsv")
    }
    return try ClassifierModel(manifestURL: manifest, labelsURL: labels)
  }

  /// The URL of a file in DexImaging's bundled classifier resources.
  static func bundledResource(_ name: String, _ ext: String) -> URL? {
    Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "ClassifierResources")
  }

  /// The network's raw scores for `image` (cropped, resampled and normalised first), computed
  /// on `threads` cores.
  public func logits(for image: RGBImage, threads: Int = 1) throws(ClassifierError) -> [Float] {
    try network.logits(forNormalizedInput: preprocessor.networkInput(from: image), threads: threads)
  }

  /// All classes ranked by probability (softmax of ``logits(for:threads:)``), best first, at most
  /// `limit`.
  public func rankedLabels(
    for image: RGBImage, limit: Int, threads: Int = 1
  )
    throws(ClassifierError) -> [ClassificationLabel]
  {
    rankedLabels(logits: try logits(for: image, threads: threads), limit: limit)
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
