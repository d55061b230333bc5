import Foundation

/// EfficientNet-Lite0, an ImageNet-1k convolutional network, running on the CPU.
///
/// It exists so that DexKit can make a real, offline, private first guess on every platform,
/// including Linux where Apple's Vision framework does not exist. The weights (Apache-2.0, BatchNorm
/// folded, float16 on disk) ship as a resource of DexImaging, see ``ClassifierModel/bundled()``;
/// a host can also load converted weights from a file URL with
/// ``init(manifestURL:backend:precision:fault:)``.
///
/// Two backends compute it (see ``ClassifierBackend``): oneDNN where the engine was built with it (Linux,
/// the package trait `OneDNN`), and plain float Swift everywhere else, which is also the oneDNN
/// backend's test reference. The graph is built once, when the weights load.
///
/// An instance is immutable once loaded, so one shared instance serves any number of concurrent
/// calls: each call works in buffers of its own, kept between calls so that back-to-back
/// classifications do not remake them. Layout is NHWC; padding follows TensorFlow's "SAME" rule.
package final class EfficientNetLite0: Sendable {
  /// The side of the square input the network expects, in pixels.
  package static let inputSize = 224
  /// The number of classes the network scores (1000 for ImageNet).
  package let classCount: Int

  /// The backend computing this instance's logits: ``ClassifierBackend/oneDNN`` or
  /// ``ClassifierBackend/portable``, never ``ClassifierBackend/automatic``.
  package let backend: ClassifierBackend
  /// Why oneDNN was wanted but is not used (it is not built in or could not build the graph),
  /// for the host's log; `nil` when nothing fell back.
  package let fallbackReason: String?
  /// The instruction set the backend's kernels use (oneDNN's choice for this processor, such as
  /// `avx512_core_vnni`; `ONEDNN_MAX_CPU_ISA` caps it), `nil` on the portable path.
  package let instructionSet: String?
  /// The arithmetic of the convolutions (int8 on oneDNN where the processor has VNNI, see
  /// ``ClassifierPrecision``); never ``ClassifierPrecision/automatic``.
  package let precision: ClassifierPrecision
  /// The arithmetic that was asked for (``ClassifierPrecision/automatic`` unless the host chose),
  /// for the host's log.
  package let requestedPrecision: ClassifierPrecision
  /// How many blocks oneDNN runs fused on one thread (`nil` on the portable path), for the
  /// host's log.
  package let fusedBlocks: Int?
  private let compute: Compute
  /// The backend's network, for the tests.
  var computeForTests: Compute { compute }

  enum Compute: Sendable {
    case portable(PortableNetwork)
    #if os(Linux) && OneDNN
      case oneDNN(OneDNNNetwork)
    #endif
  }

  /// Loads converted weights from the manifest at `manifestURL` (written by
  /// `Scripts/classifier-convert.py`); the blob it names is read from the same directory.
  ///
  /// `backend` says which backend to prefer (see ``ClassifierBackend``), `precision` which
  /// arithmetic (see ``resolvedPrecision(_:backend:int8Kernels:)``); `fault` makes the oneDNN
  /// backend fail, for the tests of the fallback.
  ///
  /// - Throws: ``ClassifierError`` when a file is missing, unreadable or inconsistent.
  package convenience init(
    manifestURL: URL, backend: ClassifierBackend = .automatic,
    precision requested: ClassifierPrecision = .automatic, fault: BackendFault? = nil
  ) throws(ClassifierError) {
    let precision = Self.resolvedPrecision(requested, backend: backend)
    let manifestData = try ClassifierFile.contents(
      of: manifestURL, maximumByteCount: ClassifierFile.maximumJSONByteCount)
    let manifest: WeightsManifest
    do {
      manifest = try JSONDecoder().decode(WeightsManifest.self, from: manifestData)
    } catch {
      throw .invalidManifest("not a weights manifest (\(error))")
    }
    let name = manifest.weights.file
    guard !name.isEmpty, !name.contains("/"), !name.contains("\\"), name != ".."
    else { throw .invalidManifest("weights file name \(name) is not a plain file name") }
    let blobURL = manifestURL.deletingLastPathComponent().appendingPathComponent(name)
    let blob = try ClassifierFile.mappedContents(
      of: blobURL, maximumByteCount: ClassifierFile.maximumWeightsByteCount)
    // The int8 ranges are read only when int8 is asked for (or chosen, on a processor with VNNI):
    // a float32 model never depends on them.
    let ranges =
      precision == .int8
      ? try ActivationRanges.load(
        nextTo: manifestURL, manifest: manifest,
        inputChannels: NetworkLayers.inputChannels(of: manifest.architecture))
      : nil
    try self.init(
      manifest: manifest, blob: blob, backend: backend, ranges: ranges, precision: requested,
      fault: fault)
  }

  /// Builds the network from a decoded manifest and its weights blob.
  init(
    manifest: WeightsManifest, blob: Data, backend preference: ClassifierBackend = .automatic,
    ranges: ActivationRanges? = nil, precision requested: ClassifierPrecision = .automatic,
    fault: BackendFault? = nil
  ) throws(ClassifierError) {
    let precision = Self.resolvedPrecision(requested, backend: preference)
    guard manifest.format == "dexkit-classifier-weights", manifest.version == 1 else {
      throw .invalidManifest("unsupported format \(manifest.format) v\(manifest.version)")
    }
    guard manifest.model == "efficientnet-lite0" else {
      throw .invalidManifest("model \(manifest.model) is not efficientnet-lite0")
    }
    let arch = manifest.architecture
    guard arch.activation == "relu6", arch.padding == "tf-same", !arch.blocks.isEmpty,
      arch.blocks.count <= 64, (1...100_000).contains(arch.classes),
      (8...8192).contains(arch.stemChannels), (8...8192).contains(arch.headChannels)
    else { throw .invalidManifest("unsupported architecture parameters") }
    guard blob.count == manifest.weights.byteCount else {
      throw .invalidWeights(
        "blob has \(blob.count) bytes, manifest says \(manifest.weights.byteCount)")
    }
    let store = try TensorStore(manifest: manifest, blob: blob)

    self.classCount = arch.classes
    self.requestedPrecision = requested
    var reason: String?
    #if os(Linux) && OneDNN
      if preference != .portable {
        do {
          let network = try OneDNNNetwork(
            architecture: arch, store: store, ranges: ranges, precision: precision, fault: fault)
          self.compute = .oneDNN(network)
          self.backend = .oneDNN
          self.instructionSet = network.instructionSet
          self.precision = network.precision
          self.fusedBlocks = network.fusedBlocks
          self.fallbackReason = nil
          return
        } catch {
          guard case .backendFailed(let message) = error else { throw error }
          reason = message
        }
      }
    #else
      if preference == .oneDNN { reason = "oneDNN is not built in on this platform" }
    #endif
    self.compute = .portable(
      PortableNetwork(network: try NetworkLayers(architecture: arch, store: store)))
    self.backend = .portable
    self.instructionSet = nil
    self.precision = .float32
    self.fusedBlocks = nil
    self.fallbackReason = reason
  }

  /// Runs the network on a normalised `224 × 224 × 3` input (NHWC, see `ImagePreprocessor` in DexImaging)
  /// and returns one raw score (logit) per class.
  ///
  /// `threads` spreads this one inference over that many cores on the oneDNN backend (1, the
  /// default, keeps it on the calling thread; a server classifying many photos at once gets more
  /// throughput that way); the portable path always computes on the calling thread.
  ///
  /// - Throws: ``ClassifierError/invalidInput(_:)`` for a wrongly sized input or one with a NaN or
  ///   an infinity,
  ///   ``ClassifierError/cancelled`` when `isCancelled` (by default: is the current task
  ///   cancelled?) says so mid-way.
  package func logits(
    forNormalizedInput input: [Float], threads: Int = 1,
    isCancelled: () -> Bool = { Task.isCancelled }
  ) throws(ClassifierError)
    -> [Float]
  {
    let size = Self.inputSize
    guard input.count == size * size * 3 else {
      throw .invalidInput("expected \(size * size * 3) values, got \(input.count)")
    }
    if let bad = input.firstIndex(where: { !$0.isFinite }) {
      throw .invalidInput("value \(bad) is not a finite number")
    }
    if isCancelled() { throw .cancelled }
    switch compute {
    case .portable(let network):
      return try network.logits(input, size: size, isCancelled: isCancelled)
    #if os(Linux) && OneDNN
      case .oneDNN(let network): return try network.logits(input, threads: threads)
    #endif
    }
  }

}
