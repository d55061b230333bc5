#if os(Linux) && OneDNN
  import CDexNeuralShim
  import Synchronization
  import Foundation

  /// The network on oneDNN, through the C shim `CDexNeuralShim`.
  ///
  /// The shim keeps one plan (the primitives of the whole graph) per thread count asked for:
  /// one thread runs whole layers; more split each layer into bands (rows, pixels or output
  /// channels) that the calling thread and the inference's own helper threads take in turn, each
  /// band a single-threaded oneDNN primitive. The one-thread plan is built at load, so that a
  /// graph oneDNN refuses fails there, and others on first use, sharing the reordered weights
  /// wherever the layouts agree. Each in-flight inference works in a context of its own
  /// (activations, scratchpads, streams, helpers); the shim keeps idle ones.
  ///
  /// The blocks whose expanded activation outgrows the processor's L2 cache (the 112×112 and
  /// 56×56 ones) run fused in f32: band by band, expansion rows into a tile that stays in cache,
  /// then the depthwise layer and the projection, each step an ordinary oneDNN primitive on a
  /// shorter image; more threads take a chain of bands each.
  final class OneDNNNetwork: Sendable {
    /// Which blocks run fused and in what tile (see `dexnn_graph`): the processor's L2 by
    /// default; the tests choose others to run every band geometry.
    struct Fusion: Sendable, Hashable {
      /// The tile's bytes (0: 3/8 of the L2).
      var tileBytes = 0
      /// The smallest expanded activation, in bytes, that runs fused (0: the L2's size).
      var fromBytes = 0
      /// Every fused block acts as if a band had fallen to oneDNN's reference kernel, and is
      /// built layer by layer instead (the fallback's test).
      var rejectsBands = false
    }

    let classCount: Int
    /// The instruction set oneDNN's kernels use in this process, such as `avx512_core_vnni`.
    let instructionSet: String
    /// The arithmetic of the convolutions: int8 where it was asked for, the processor has VNNI
    /// and the weights have calibrated ranges; f32 otherwise.
    let precision: ClassifierPrecision
    private let ranges: ActivationRanges?
    private let handle: Handle
    private let architecture: WeightsManifest.Architecture
    private let store: TensorStore
    private let fusion: Fusion
    private let planned = Mutex<Set<Int>>([])

    /// The shim's network, destroyed with this object.
    private final class Handle: @unchecked Sendable {
      // The shim locks its own state; the pointer itself never changes.
      let pointer: OpaquePointer
      init(_ pointer: OpaquePointer) { self.pointer = pointer }
      deinit { dexnn_network_destroy(pointer) }
    }

    /// The largest thread count a plan is built for: more only oversubscribes the cores.
    static var threadLimit: Int {
      max(1, min(ProcessInfo.processInfo.activeProcessorCount, Int(DEXNN_MAX_THREADS)))
    }

    /// The file name libdnnl is loaded from, and the missing one the tests name instead.
    static let library = DEXNN_LIBRARY
    static let missingLibrary = "libdnnl-dexkit-missing.so.2"

    /// Whether the processor, as oneDNN sees it in this process (after `ONEDNN_MAX_CPU_ISA`), has
    /// VNNI, where int8 pays; decided once per process.
    static let hasVNNI = dexnn_has_vnni() != 0

    /// Makes the oneDNN engine and the one-thread plan, in int8 when `precision` asks for it,
    /// `ranges` are given and ``hasVNNI``; `fault` breaks the graph or names a missing library,
    /// and `fusion` sets other band geometries, for the tests.
    init(
      architecture: WeightsManifest.Architecture, store: TensorStore,
      ranges: ActivationRanges?, precision: ClassifierPrecision,
      fault: EfficientNetLite0.BackendFault?, fusion: Fusion = Fusion()
    ) throws(ClassifierError) {
      var pointer: OpaquePointer?
      let library = fault == .missingLibrary ? Self.missingLibrary : Self.library
      try Self.check("oneDNN engine (\(library))") { message, size in
        dexnn_network_create(&pointer, library, message, size)
      }
      guard let pointer else { throw .backendFailed("oneDNN engine: no network") }
      self.handle = Handle(pointer)
      self.architecture = architecture
      self.store = store
      self.fusion = fusion
      self.classCount = architecture.classes
      self.instructionSet = String(cString: dexnn_instruction_set())
      let int8 = precision == .int8 && ranges != nil && Self.hasVNNI
      self.precision = int8 ? .int8 : .float32
      self.ranges = int8 ? ranges : nil
      try addPlan(threads: 1, fault: fault)
    }

    /// How many blocks the one-thread plan runs fused (band by band through a tile that stays
    /// in cache): 0 where oneDNN keeps blocked layouts or the L2 holds every block.
    var fusedBlocks: Int { max(0, Int(dexnn_network_fused_blocks(handle.pointer, 1))) }

    /// The kernels of the plan for `threads` threads, comma-separated (`nil` before its first
    /// use; a fused block adds "copy" steps): for the tests, which check that no layer runs
    /// oneDNN's reference kernels.
    func implementations(threads: Int) -> String? {
      var text = [CChar](repeating: 0, count: 65536)
      let status = dexnn_network_implementations(handle.pointer, Int32(threads), &text, text.count)
      guard ShimStatus(status) == .ok else { return nil }
      return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The logits of a checked input, computed on `threads` threads (at most ``threadLimit``,
    /// unless `uncapped`: the tests split the layers more ways than the machine has cores).
    func logits(
      _ input: [Float], threads: Int, uncapped: Bool = false
    ) throws(ClassifierError)
      -> [Float]
    {
      let threads = min(max(threads, 1), uncapped ? 16 : Self.threadLimit)
      var logits = [Float](repeating: 0, count: classCount)
      for _ in 0..<2 {
        var status = ShimStatus.ok
        let message = Self.withMessage { message, size in
          let code = logits.withUnsafeMutableBufferPointer { output in
            dexnn_network_run(
              handle.pointer, Int32(threads), input, output.baseAddress, message, size)
          }
          status = ShimStatus(code)
          return code
        }
        switch status {
        case .ok: return logits
        case .noPlan: try addPlan(threads: threads, fault: nil)
        case .outOfMemory: throw .backendFailed("oneDNN inference: out of memory")
        default: throw .backendFailed("oneDNN inference: \(message ?? "failed")")
        }
      }
      throw .backendFailed("oneDNN inference: no plan for \(threads) threads")
    }

    /// Builds the plan for `threads` threads unless one exists.
    private func addPlan(
      threads: Int, fault: EfficientNetLite0.BackendFault?
    ) throws(ClassifierError) {
      try planned.withLock { (planned) throws(ClassifierError) in
        guard !planned.contains(threads) else { return }
        var network = try NetworkLayers(architecture: architecture, store: store)
        if fault == .graph { network.layers[0].stride = 0 }
        try Self.withGraph(network, ranges: ranges, fusion: fusion) {
          (graph) throws(ClassifierError) in
          try Self.check("oneDNN graph for \(threads) threads") { message, size in
            withUnsafePointer(to: graph) {
              dexnn_network_add_plan(handle.pointer, $0, Int32(threads), message, size)
            }
          }
        }
        planned.insert(threads)
      }
    }

    /// `network` as the shim's graph, valid inside `body`: every weight in one buffer; int8
    /// layers where `ranges` are given.
    private static func withGraph(
      _ network: NetworkLayers, ranges: ActivationRanges?, fusion: Fusion,
      _ body: (dexnn_graph) throws(ClassifierError) -> Void
    ) throws(ClassifierError) {
      var values: [Float] = []
      values.reserveCapacity(
        network.layers.reduce(0) { $0 + $1.weights.count + $1.bias.count }
          + network.classifierWeights.count + network.classifierBias.count)
      var offsets: [(weights: Int, bias: Int)] = []
      for layer in network.layers {
        offsets.append((values.count, values.count + layer.weights.count))
        values += layer.weights
        values += layer.bias
      }
      let classifier = values.count
      values += network.classifierWeights
      values += network.classifierBias
      // Each layer's input means (bias correction), where the ranges file has them.
      var means: [Int?] = []
      for (index, layer) in network.layers.enumerated() {
        guard let layerMeans = ranges?.inputMeans?[index] else {
          means.append(nil)
          continue
        }
        guard layerMeans.count == layer.inputChannels else {
          throw .invalidManifest("the int8 ranges' input means of layer \(index) do not fit it")
        }
        means.append(values.count)
        values += layerMeans
      }
      let result = values.withUnsafeBufferPointer {
        (buffer) -> Result<Void, ClassifierError> in
        guard let base = buffer.baseAddress else { return .failure(.invalidWeights("no weights")) }
        let layers = zip(network.layers, offsets).enumerated().map { index, pair in
          let (layer, offset) = pair
          let range = ranges?.layers[index] ?? 0
          // int8: every convolution but those the ranges file keeps in f32 (mixed precision;
          // Benchmarks/HISTORY.md, issue 43); pooling and the classifier run in f32.
          let float32 = ranges.map { $0.float32Layers?.contains(index) ?? false } ?? true
          let int8: Int32 = float32 ? 0 : 1
          return dexnn_layer(
            kernel: Int32(layer.kernel), stride: Int32(layer.stride),
            input_channels: Int32(layer.inputChannels),
            output_channels: Int32(layer.outputChannels), depthwise: layer.depthwise ? 1 : 0,
            relu6: layer.relu6 ? 1 : 0, residual: layer.residualFrom == nil ? 0 : 1,
            residual_from: Int32(layer.residualFrom ?? 0), weights: base + offset.weights,
            bias: base + offset.bias, int8: int8, output_range: range,
            input_means: int8 == 0 ? nil : means[index].map { base + $0 })
        }
        return layers.withUnsafeBufferPointer { layers in
          let graph = dexnn_graph(
            layers: layers.baseAddress, layer_count: Int32(layers.count),
            input_size: Int32(EfficientNetLite0.inputSize), features: Int32(network.features),
            classes: Int32(network.classes),
            classifier_weights: base + classifier,
            classifier_bias: base + classifier + network.classifierWeights.count,
            input_range: ranges?.input ?? 0, fusion_tile_bytes: fusion.tileBytes,
            fusion_from_bytes: fusion.fromBytes, fusion_rejects_bands: fusion.rejectsBands ? 1 : 0)
          return Result { () throws(ClassifierError) in try body(graph) }
        }
      }
      try result.get()
    }

    /// Calls the shim with room for its message and turns a failure into ``ClassifierError``.
    private static func check(
      _ step: String, _ call: (UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(ClassifierError) {
      var status = ShimStatus.ok
      let message = withMessage { message, size in
        let code = call(message, size)
        status = ShimStatus(code)
        return code
      }
      switch status {
      case .ok: return
      case .outOfMemory: throw .backendFailed("\(step): out of memory")
      default: throw .backendFailed("\(step): \(message ?? "failed")")
      }
    }

    /// Runs `call` with a message buffer; returns the message when `call` did not return OK.
    private static func withMessage(
      _ call: (UnsafeMutablePointer<CChar>, Int) -> Int32
    ) -> String? {
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        guard let base = buffer.baseAddress else { return nil }
        base.initialize(repeating: 0, count: 256)
        return ShimStatus(call(base, 256)) == .ok ? nil : String(cString: base)
      }
    }
  }
#endif
