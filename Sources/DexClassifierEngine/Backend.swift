extension EfficientNetLite0 {
  /// The code that computes the network's layers.
  package enum Backend: String, Sendable, Hashable, CaseIterable {
    /// XNNPACK's f32 kernels (SSE to AVX-512 or NEON, picked at run time), threaded through
    /// pthreadpool: Linux, where DexImaging links the system's libXNNPACK.
    case xnnpack
    /// The pure-Swift kernels: every platform, and the test oracle for ``xnnpack``.
    case portable
  }

  /// Which backend a caller asks for when loading the network.
  package enum BackendPreference: String, Sendable, Hashable, CaseIterable {
    /// XNNPACK where it is built in and faster on this processor (``isXNNPACKPreferred``),
    /// the portable path otherwise.
    case automatic
    /// XNNPACK; the portable path (with a ``EfficientNetLite0/fallbackReason``) where it is not
    /// built in or fails to initialise or to build the graph.
    case xnnpack
    /// The portable path, even where XNNPACK is built in.
    case portable
  }

  /// A step at which the tests make the XNNPACK backend fail, to check the fallback.
  package enum XNNPACKFault: Sendable, Hashable {
    /// As if `xnn_initialize` refused the processor.
    case initialization
    /// A node XNNPACK rejects while the graph is defined.
    case graph
  }

  /// Whether ``BackendPreference/automatic`` picks XNNPACK here: built in, and on x86-64 only
  /// where the processor has AVX-512F (with AVX2 alone the system's XNNPACK build measured
  /// slower than the portable int16 path).
  package static var isXNNPACKPreferred: Bool {
    #if canImport(CXNNPACK)
      XNNPACKNetwork.isPreferredOnThisProcessor
    #else
      false
    #endif
  }

  /// Whether this build of the engine has the XNNPACK backend.
  package static var isXNNPACKBuiltIn: Bool {
    #if canImport(CXNNPACK)
      true
    #else
      false
    #endif
  }
}
