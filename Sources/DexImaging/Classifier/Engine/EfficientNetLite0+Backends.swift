#if os(Linux) && OneDNN
  import CDexNeuralShim
#endif

extension EfficientNetLite0 {
  /// A step at which the tests make the oneDNN backend fail, to check the fallback.
  package enum BackendFault: Sendable, Hashable {
    /// A layer oneDNN rejects while the graph is built (a stride of zero).
    case graph
    /// libdnnl cannot be loaded (the shim is pointed at a library name that does not exist).
    case missingLibrary
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

  /// The precision a network is built for when `requested` is asked of `backend`:
  /// ``ClassifierPrecision/automatic`` becomes ``ClassifierPrecision/int8`` where the oneDNN
  /// backend may run (`backend` is not ``ClassifierBackend/portable``) and `int8Kernels` (oneDNN
  /// sees VNNI, ``hasInt8Kernels``), ``ClassifierPrecision/float32`` elsewhere; the others stay
  /// as asked (the oneDNN backend still runs f32 where int8 is not granted). The tests pass
  /// `int8Kernels` both ways.
  package static func resolvedPrecision(
    _ requested: ClassifierPrecision, backend: ClassifierBackend,
    int8Kernels: Bool = hasInt8Kernels
  ) -> ClassifierPrecision {
    guard requested == .automatic else { return requested }
    return backend != .portable && int8Kernels ? .int8 : .float32
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
