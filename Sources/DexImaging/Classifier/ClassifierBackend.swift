import DexClassifierEngine

/// The code that runs the offline classifier's network.
///
/// ``automatic`` is the right choice for nearly every host: XNNPACK (Google's inference kernels,
/// the engine under TensorFlow Lite, picking SSE, AVX2, AVX-512 or NEON code at run time) where
/// DexImaging is built with it (Linux) and it is the faster of the two, and the portable
/// pure-Swift path elsewhere. On x86-64 that means processors with AVX-512F: with AVX2 alone the
/// Debian build of XNNPACK that DexImaging links measured 1.8 times slower than the portable
/// path's 16-bit integer 1×1 convolutions. The other two cases force one side, for comparisons
/// and tests. A model that asked for XNNPACK
/// and could not have it (not built in, a processor it refuses, a graph it cannot build) runs
/// the portable path instead and says why in its log; ``ClassifierModel/backend`` tells which
/// one runs.
public enum ClassifierBackend: String, Sendable, Hashable, CaseIterable {
  /// XNNPACK where it is built in and the faster backend for this processor, the portable path
  /// otherwise.
  case automatic
  /// XNNPACK, falling back to the portable path (logged) when it is unavailable or fails to load.
  case xnnpack
  /// The portable pure-Swift float kernels, on every platform.
  case portable

  /// The engine's preference for this case.
  var preference: EfficientNetLite0.BackendPreference {
    switch self {
    case .automatic: .automatic
    case .xnnpack: .xnnpack
    case .portable: .portable
    }
  }

  /// The public name of the engine backend that runs.
  init(_ backend: EfficientNetLite0.Backend) {
    switch backend {
    case .xnnpack: self = .xnnpack
    case .portable: self = .portable
    }
  }
}
