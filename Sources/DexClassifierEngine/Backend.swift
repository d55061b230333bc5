extension EfficientNetLite0 {
  /// The code that computes the network's layers.
  package enum Backend: String, Sendable, Hashable, CaseIterable {
    /// XNNPACK's f32 kernels (SSE to AVX-512 or NEON, picked at run time), threaded through
    /// pthreadpool: Linux builds with the package trait `XNNPACK`, which link the system's
    /// libXNNPACK.
    case xnnpack
    /// The pure-Swift kernels: every platform, and the test oracle for ``xnnpack``.
    case portable
  }

  /// Which backend a caller asks for when loading the network.
  package enum BackendPreference: String, Sendable, Hashable, CaseIterable {
    /// The backend measured fastest here: the portable path (see ``isXNNPACKPreferred``).
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

  /// Whether ``BackendPreference/automatic`` picks XNNPACK: never for now. The system's XNNPACK
  /// build (Debian's 2022 snapshot) measured 1.8 times slower than the portable path on the
  /// only processors this project has run it on (x86-64 with AVX2), and no other processor has
  /// been measured; ask for ``BackendPreference/xnnpack`` explicitly to use it.
  package static var isXNNPACKPreferred: Bool { false }

  /// Whether this build of the engine has the XNNPACK backend.
  package static var isXNNPACKBuiltIn: Bool {
    #if canImport(CXNNPACK)
      true
    #else
      false
    #endif
  }
}
