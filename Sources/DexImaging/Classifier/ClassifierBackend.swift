import DexClassifierEngine

/// The code that runs the offline classifier's network.
///
/// ``automatic`` is the right choice for nearly every host: today it runs the portable pure-Swift
/// path everywhere, the fastest measured. ``xnnpack`` asks for XNNPACK (Google's inference
/// kernels, the engine under TensorFlow Lite, picking SSE, AVX2, AVX-512 or NEON code at run
/// time), which exists only in Linux builds of DexKit with the package trait `XNNPACK`
/// (`swift build --traits XNNPACK`; it links Debian's libxnnpack-dev, libpthreadpool-dev and
/// libcpuinfo-dev). On the x86-64 hosts with AVX2 where it was measured, that XNNPACK build ran
/// 1.8 times slower than the portable path, so it is opt-in until a faster build or another
/// processor says otherwise. A model that asked for XNNPACK and could not have it (not built
/// in, a processor it refuses, a graph it cannot build) runs the portable path instead and says
/// why in its log; ``ClassifierModel/backend`` tells which one runs.
public enum ClassifierBackend: String, Sendable, Hashable, CaseIterable {
  /// The backend measured fastest: the portable path, for now (see the type's discussion).
  case automatic
  /// XNNPACK, falling back to the portable path (logged) when it is unavailable or fails to load.
  case xnnpack
  /// The portable pure-Swift kernels, on every platform: 1×1 convolutions in 16-bit integers on
  /// x86-64 and in 32-bit floats elsewhere, the other layers in floats.
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
