#if canImport(CXNNPACK)
  import CXNNPACK
  import Foundation

  /// The network on XNNPACK: the whole EfficientNet-Lite0 graph defined once with XNNPACK's
  /// subgraph API in 32-bit floats, run by XNNPACK's kernels (SSE through AVX-512 on x86-64, NEON
  /// on arm64, chosen at run time) and threaded through pthreadpool.
  ///
  /// Layout is NHWC with OHWI filters; TensorFlow's "SAME" padding is given as explicit,
  /// possibly asymmetric pads, ReLU6 as each node's output clamp. The weights are copied once
  /// into memory this object owns and that outlives every runtime made from them.
  ///
  /// An XNNPACK runtime serves one inference at a time, so each call takes an idle runtime for
  /// its thread count from a small pool (making one when none is idle) and puts it back after:
  /// concurrent calls never share a runtime, and back-to-back calls reuse one.
  final class XNNPACKNetwork: @unchecked Sendable {
    // @unchecked: the weight pointers are written once in `init` and only read afterwards; the
    // pool of idle runtimes is guarded by `lock`.

    /// Why the graph could not be built or run: the XNNPACK call and its status.
    struct Failure: Error, CustomStringConvertible {
      var step: String
      var status: Int
      var description: String { "XNNPACK \(step) failed with status \(status)" }
    }

    /// One convolution of the graph: the stem, a 1×1 expansion or projection, or a depthwise.
    private struct Convolution {
      var weights: UnsafePointer<Float>
      var bias: UnsafePointer<Float>
      var kernel: Int
      var stride: Int
      var inputChannels: Int
      var outputChannels: Int
      var depthwise: Bool
      var relu6: Bool
    }

    private struct Block {
      var layers: [Convolution]
      var residual: Bool
    }

    let classCount: Int
    private let stem: Convolution
    private let blocks: [Block]
    private let head: Convolution
    private let classifierWeights: UnsafePointer<Float>
    private let classifierBias: UnsafePointer<Float>
    private let headChannels: Int
    /// Every weight allocation, freed in `deinit` after the runtimes.
    private let allocations: [UnsafeMutablePointer<Float>]
    private let lock = NSLock()
    private var idle: [Int: [Runtime]] = [:]
    /// How many idle runtimes are kept per thread count.
    private static let retainedPerThreadCount = 2

    /// Whether `xnn_initialize` succeeded (it runs once per process).
    private static let initialization: Result<Void, Failure> = {
      let status = xnn_initialize(nil)
      guard status == xnn_status_success else {
        return .failure(Failure(step: "xnn_initialize", status: Int(status.rawValue)))
      }
      return .success(())
    }()

    /// Copies the weights of `arch` out of `store` into XNNPACK's layouts and builds (and keeps)
    /// a first single-threaded runtime, so that a graph XNNPACK cannot run fails here.
    ///
    /// `fault` makes a chosen step fail for the tests of the fallback: `.initialization` as if
    /// `xnn_initialize` had refused this processor, `.graph` by defining a depthwise node with
    /// a zero-sized kernel, which XNNPACK itself rejects.
    init(
      architecture arch: WeightsManifest.Architecture, store: TensorStore,
      fault: EfficientNetLite0.XNNPACKFault? = nil
    ) throws(NetworkError) {
      var allocations: [UnsafeMutablePointer<Float>] = []
      var cleanUp = true
      defer { if cleanUp { for pointer in allocations { pointer.deallocate() } } }
      func copy(_ values: [Float]) -> UnsafePointer<Float> {
        let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(values.count, 1))
        pointer.initialize(from: values, count: values.count)
        allocations.append(pointer)
        return UnsafePointer(pointer)
      }
      /// `[rows, columns]` → `[columns, rows]`: IO and HWIO weights to XNNPACK's O-first layout.
      func transposed(_ values: [Float], rows: Int, columns: Int) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        for r in 0..<rows {
          for c in 0..<columns { out[c * rows + r] = values[r * columns + c] }
        }
        return out
      }
      func pointwise(
        _ name: String, _ cin: Int, _ cout: Int, relu6: Bool
      ) throws(NetworkError) -> Convolution {
        let w = try store.tensor("\(name).weight", shape: [cin, cout])
        let b = try store.tensor("\(name).bias", shape: [cout])
        return Convolution(
          weights: copy(transposed(w, rows: cin, columns: cout)), bias: copy(b), kernel: 1,
          stride: 1, inputChannels: cin, outputChannels: cout, depthwise: false, relu6: relu6)
      }

      let stemW = try store.tensor("stem.weight", shape: [3, 3, 3, arch.stemChannels])
      stem = Convolution(
        weights: copy(transposed(stemW, rows: 27, columns: arch.stemChannels)),
        bias: copy(try store.tensor("stem.bias", shape: [arch.stemChannels])), kernel: 3,
        stride: 2, inputChannels: 3, outputChannels: arch.stemChannels, depthwise: false,
        relu6: true)
      var blocks: [Block] = []
      var channels = arch.stemChannels
      for (i, spec) in arch.blocks.enumerated() {
        var layers: [Convolution] = []
        let expanded = channels * spec.expand
        if spec.expand != 1 {
          layers.append(try pointwise("blocks.\(i).expand", channels, expanded, relu6: true))
        }
        let dwW = try store.tensor(
          "blocks.\(i).depthwise.weight", shape: [spec.kernel, spec.kernel, expanded])
        let dwB = try store.tensor("blocks.\(i).depthwise.bias", shape: [expanded])
        layers.append(
          Convolution(
            weights: copy(dwW), bias: copy(dwB), kernel: spec.kernel, stride: spec.stride,
            inputChannels: expanded, outputChannels: expanded, depthwise: true, relu6: true))
        layers.append(
          try pointwise("blocks.\(i).project", expanded, spec.outputChannels, relu6: false))
        blocks.append(
          Block(
            layers: layers,
            residual: spec.stride == 1 && spec.inputChannels == spec.outputChannels))
        channels = spec.outputChannels
      }
      head = try pointwise("head", channels, arch.headChannels, relu6: true)
      let fcW = try store.tensor("classifier.weight", shape: [arch.headChannels, arch.classes])
      classifierWeights = copy(transposed(fcW, rows: arch.headChannels, columns: arch.classes))
      classifierBias = copy(try store.tensor("classifier.bias", shape: [arch.classes]))
      headChannels = arch.headChannels
      classCount = arch.classes
      self.blocks = blocks
      self.allocations = allocations
      cleanUp = false

      do throws(Failure) {
        if fault == .initialization {
          throw Failure(
            step: "xnn_initialize", status: Int(xnn_status_unsupported_hardware.rawValue))
        }
        try Self.initialization.get()
        let first = try Runtime(network: self, threads: 1, fault: fault)
        idle[1] = [first]
      } catch {
        throw .backendFailed("\(error)")
      }
    }

    deinit {
      idle.removeAll()
      for pointer in allocations { pointer.deallocate() }
    }

    /// The logits of a checked `224 × 224 × 3` input, computed on `threads` threads.
    func logits(_ input: [Float], threads: Int) throws(NetworkError) -> [Float] {
      let threads = max(1, threads)
      let reused = lock.withLock { idle[threads]?.popLast() }
      let runtime: Runtime
      if let reused {
        runtime = reused
      } else {
        do throws(Failure) {
          runtime = try Runtime(network: self, threads: threads, fault: nil)
        } catch {
          throw .backendFailed("\(error)")
        }
      }
      let result: Result<[Float], Failure> = input.withUnsafeBufferPointer { buffer in
        Result { () throws(Failure) in try runtime.run(buffer) }
      }
      lock.withLock {
        if idle[threads, default: []].count < Self.retainedPerThreadCount {
          idle[threads, default: []].append(runtime)
        }
      }
      switch result {
      case .success(let logits): return logits
      case .failure(let failure): throw .backendFailed("\(failure)")
      }
    }

    /// Defines the whole graph in a fresh subgraph: external value 0 is the `1 × 224 × 224 × 3`
    /// input, external value 1 the `1 × 1 × 1 × classes` logits.
    private func define(
      in subgraph: xnn_subgraph_t, fault: EfficientNetLite0.XNNPACKFault?
    ) throws(Failure) {
      func check(_ status: xnn_status, _ step: String) throws(Failure) {
        guard status == xnn_status_success else {
          throw Failure(step: step, status: Int(status.rawValue))
        }
      }
      func tensor(
        _ dims: [Int], data: UnsafePointer<Float>? = nil, external: UInt32 = XNN_INVALID_VALUE_ID,
        flags: UInt32 = 0
      ) throws(Failure) -> UInt32 {
        var id = XNN_INVALID_VALUE_ID
        try check(
          xnn_define_tensor_value(
            subgraph, xnn_datatype_fp32, dims.count, dims, data, external, flags, &id),
          "xnn_define_tensor_value")
        return id
      }
      var (height, width) = (EfficientNetLite0.inputSize, EfficientNetLite0.inputSize)
      var current = try tensor(
        [1, height, width, 3], external: 0, flags: UInt32(XNN_VALUE_FLAG_EXTERNAL_INPUT))

      func apply(_ layer: Convolution) throws(Failure) {
        let (outHeight, top, bottom) = Self.samePadding(height, layer.kernel, layer.stride)
        let (outWidth, left, right) = Self.samePadding(width, layer.kernel, layer.stride)
        let k = layer.kernel
        let filter = try tensor(
          layer.depthwise
            ? [1, k, k, layer.outputChannels] : [layer.outputChannels, k, k, layer.inputChannels],
          data: layer.weights)
        let bias = try tensor([layer.outputChannels], data: layer.bias)
        let output = try tensor([1, outHeight, outWidth, layer.outputChannels])
        let (low, high): (Float, Float) = layer.relu6 ? (0, 6) : (-.infinity, .infinity)
        let (kh, kw, sh, sw) = (UInt32(k), UInt32(k), UInt32(layer.stride), UInt32(layer.stride))
        let (pt, pr, pb, pl) = (UInt32(top), UInt32(right), UInt32(bottom), UInt32(left))
        if layer.depthwise {
          // The `.graph` fault: a zero-sized kernel, which XNNPACK refuses.
          let kernelHeight = fault == .graph ? 0 : kh
          try check(
            xnn_define_depthwise_convolution_2d(
              subgraph, pt, pr, pb, pl, kernelHeight, kw, sh, sw, 1, 1, 1, layer.inputChannels,
              low, high, current, filter, bias, output, 0),
            "xnn_define_depthwise_convolution_2d")
        } else {
          try check(
            xnn_define_convolution_2d(
              subgraph, pt, pr, pb, pl, kh, kw, sh, sw, 1, 1, 1, layer.inputChannels,
              layer.outputChannels, low, high, current, filter, bias, output, 0),
            "xnn_define_convolution_2d")
        }
        (height, width, current) = (outHeight, outWidth, output)
      }

      try apply(stem)
      for block in blocks {
        let input = current
        for layer in block.layers { try apply(layer) }
        if block.residual {
          let sum = try tensor([1, height, width, block.layers.last?.outputChannels ?? 0])
          try check(
            xnn_define_add2(subgraph, -.infinity, .infinity, input, current, sum, 0),
            "xnn_define_add2")
          current = sum
        }
      }
      try apply(head)
      let pooled = try tensor([1, 1, 1, headChannels])
      try check(
        xnn_define_global_average_pooling_2d(subgraph, -.infinity, .infinity, current, pooled, 0),
        "xnn_define_global_average_pooling_2d")
      let weights = try tensor([classCount, headChannels], data: classifierWeights)
      let bias = try tensor([classCount], data: classifierBias)
      let logits = try tensor(
        [1, 1, 1, classCount], external: 1, flags: UInt32(XNN_VALUE_FLAG_EXTERNAL_OUTPUT))
      try check(
        xnn_define_fully_connected(
          subgraph, -.infinity, .infinity, pooled, weights, bias, logits, 0),
        "xnn_define_fully_connected")
    }

    /// TensorFlow's "SAME" rule: the output size, and the padding before and after (the odd
    /// pixel goes after).
    static func samePadding(
      _ input: Int, _ kernel: Int, _ stride: Int
    ) -> (output: Int, before: Int, after: Int) {
      let (output, before) = DepthwiseConvolution.samePadding(
        input: input, kernel: kernel, stride: stride)
      return (output, before, max((output - 1) * stride + kernel - input, 0) - before)
    }

    /// One XNNPACK runtime of the graph and its thread pool: serves one inference at a time.
    ///
    /// The runtime reads its input from, and writes its logits to, buffers it owns, bound once
    /// by `xnn_setup_runtime` when it is made: a pass copies the caller's input in and the
    /// logits out, and XNNPACK's right to read `XNN_EXTRA_BYTES` past the end of an input never
    /// reaches beyond memory of ours.
    private final class Runtime {
      let runtime: xnn_runtime_t
      let threadpool: pthreadpool_t?
      let input: UnsafeMutableBufferPointer<Float>
      let output: UnsafeMutableBufferPointer<Float>
      /// The values of one input, without the padding XNNPACK may over-read.
      let inputCount: Int
      let classCount: Int

      /// Defines the graph in a transient subgraph, creates a runtime from it on a pool of
      /// `threads` threads (none for one: the runtime then runs on the calling thread) and binds
      /// it to this object's input and output buffers.
      init(
        network: XNNPACKNetwork, threads: Int, fault: EfficientNetLite0.XNNPACKFault?
      ) throws(Failure) {
        var subgraph: xnn_subgraph_t?
        var status = xnn_create_subgraph(2, 0, &subgraph)
        guard status == xnn_status_success, let subgraph else {
          throw Failure(step: "xnn_create_subgraph", status: Int(status.rawValue))
        }
        defer { xnn_delete_subgraph(subgraph) }
        try network.define(in: subgraph, fault: fault)
        let threadpool = threads > 1 ? pthreadpool_create(threads) : nil
        if threads > 1, threadpool == nil {
          throw Failure(step: "pthreadpool_create", status: -1)
        }
        var runtime: xnn_runtime_t?
        // Workers yield to the scheduler after each pass instead of spinning for the next one.
        let flags = UInt32(XNN_FLAG_YIELD_WORKERS)
        status = xnn_create_runtime_v2(subgraph, threadpool, flags, &runtime)
        guard status == xnn_status_success, let runtime else {
          if let threadpool { pthreadpool_destroy(threadpool) }
          throw Failure(step: "xnn_create_runtime_v2", status: Int(status.rawValue))
        }
        let padding = Int(XNN_EXTRA_BYTES) / MemoryLayout<Float>.stride
        let inputCount = EfficientNetLite0.inputSize * EfficientNetLite0.inputSize * 3
        let input = UnsafeMutableBufferPointer<Float>.allocate(capacity: inputCount + padding)
        input.initialize(repeating: 0)
        let output = UnsafeMutableBufferPointer<Float>.allocate(
          capacity: network.classCount + padding)
        output.initialize(repeating: 0)
        self.runtime = runtime
        self.threadpool = threadpool
        self.input = input
        self.output = output
        self.inputCount = inputCount
        self.classCount = network.classCount
        // From here on `deinit` releases everything, also when the binding fails.
        let values = [
          xnn_external_value(id: 0, data: UnsafeMutableRawPointer(input.baseAddress)),
          xnn_external_value(id: 1, data: UnsafeMutableRawPointer(output.baseAddress)),
        ]
        status = xnn_setup_runtime(runtime, values.count, values)
        guard status == xnn_status_success else {
          throw Failure(step: "xnn_setup_runtime", status: Int(status.rawValue))
        }
      }

      deinit {
        xnn_delete_runtime(runtime)
        if let threadpool { pthreadpool_destroy(threadpool) }
        input.deallocate()
        output.deallocate()
      }

      /// One forward pass over `values`, a checked `224 × 224 × 3` input.
      func run(_ values: UnsafeBufferPointer<Float>) throws(Failure) -> [Float] {
        guard values.count == inputCount, let source = values.baseAddress,
          let destination = input.baseAddress
        else {
          throw Failure(step: "input", status: Int(xnn_status_invalid_parameter.rawValue))
        }
        destination.update(from: source, count: inputCount)
        let status = xnn_invoke_runtime(runtime)
        guard status == xnn_status_success else {
          throw Failure(step: "xnn_invoke_runtime", status: Int(status.rawValue))
        }
        return Array(output.prefix(classCount))
      }
    }
  }
#endif
