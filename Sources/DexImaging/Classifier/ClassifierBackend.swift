import DexClassifierEngine

/// The code that runs the offline classifier's network.
///
/// ``automatic`` is the right choice for nearly every host: XNNPACK (Google's inference kernels,
/// the engine under TensorFlow Lite, picking SSE, AVX2, AVX-512 or NEON code at run time) where
/// DexImaging is built with it, which is Linux, and the portable pure-Swift path elsewhere. The
/// other two cases force one side, for comparisons and tests. A model that asked for XNNPACK
/// and could not have it (not built in, a processor it refuses, a graph it cannot build) runs
/// the portable path instead and says why in its log; ``ClassifierModel/backend`` tells which
/// one runs.
public enum ClassifierBackend: String, Sendable, Hashable, CaseIterable {
  /// XNNPACK where it is built in, the portable path otherwise.
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
