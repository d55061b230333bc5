#if os(Linux) && OneDNN
  import CDexNeuralShim
#endif

extension EfficientNetLite0 {
  /// The code that computes the network's layers.
  package enum Backend: String, Sendable, Hashable, CaseIterable {
    /// oneDNN's kernels, generated for the processor at run time (SSE4.1 to AVX-512 and VNNI),
    /// each on one thread, with the layers split into bands for more: Linux builds with the
    /// package trait `OneDNN` (on by default), which load the system's libdnnl at run time.
    case oneDNN
    /// Plain float Swift: every platform, and the reference ``oneDNN`` is tested against.
    case portable
  }

  /// Which backend a caller asks for when loading the network.
  package enum BackendPreference: String, Sendable, Hashable, CaseIterable {
    /// oneDNN where it is built in, the portable path elsewhere.
    case automatic
    /// oneDNN; the portable path (with a ``EfficientNetLite0/fallbackReason``) where it is not
    /// built in, libdnnl cannot be loaded, or oneDNN refuses to build the graph.
    case oneDNN
    /// The portable path, even where oneDNN is built in.
    case portable
  }

  /// A step at which the tests make the oneDNN backend fail, to check the fallback.
  package enum BackendFault: Sendable, Hashable {
    /// A layer oneDNN rejects while the graph is built (a stride of zero).
    case graph
    /// libdnnl cannot be loaded (the shim is pointed at a library name that does not exist).
    case missingLibrary
  }

  /// The arithmetic of the network's convolutions.
  package enum Precision: String, Sendable, Hashable, CaseIterable {
    /// 32-bit floats: logits within 1e-3 of the float64 reference. The default.
    case float32
    /// oneDNN's int8 kernels: weights in 8 bits with a scale per output channel, activations in
    /// 8 bits with a calibrated scale per tensor; pooling and the classifier in f32. Only where
    /// asked for, the processor has VNNI and the weights have calibrated ranges: twice as fast,
    /// but near-tied classes of the top-5 change places (logits move by up to about 0.5).
    case int8
  }

  /// Whether oneDNN is built in, loads, and sees VNNI on this processor (after
  /// `ONEDNN_MAX_CPU_ISA`): where the oneDNN backend runs int8. Decided once per process.
  package static var hasInt8Kernels: Bool {
    #if os(Linux) && OneDNN
      OneDNNNetwork.hasVNNI
    #else
      false
    #endif
  }

  /// Whether this build of the engine has the oneDNN backend: Linux with the `OneDNN` trait,
  /// compiled against oneDNN 2's headers (Debian 13 has only oneDNN 3, whose C API differs).
  package static var isOneDNNBuiltIn: Bool {
    #if os(Linux) && OneDNN
      dexnn_is_built_in() != 0
    #else
      false
    #endif
  }
}
