import DexClassifierEngine

/// The arithmetic the offline classifier's network runs in.
///
/// It exists so that a host can tell (and log) whether its guesses came from the exact float
/// network or from oneDNN's faster 8-bit kernels, which DexKit picks by itself, once per
/// process, where the processor has VNNI (`avx512_core_vnni`, `avx2_vnni`). The int8 network
/// keeps the float64 reference's top-5 on every test photo; its logits differ from the float
/// network's by a few tenths at most.
public enum ClassifierPrecision: String, Sendable, Hashable, CaseIterable {
  /// 32-bit floats: logits within 1e-3 of the float64 reference.
  case float32
  /// 8-bit weights (a scale per output channel) and activations (a calibrated scale per
  /// tensor), with pooling and the last layer in 32-bit floats.
  case int8

  /// The public name of the engine's precision.
  init(_ precision: EfficientNetLite0.Precision) {
    switch precision {
    case .float32: self = .float32
    case .int8: self = .int8
    }
  }
}
