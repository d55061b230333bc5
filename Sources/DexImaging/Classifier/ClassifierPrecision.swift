/// The arithmetic the offline classifier's network runs in.
///
/// It exists so that a host that classifies many photos can trade exactness for speed, and
/// tell (and log) which one its guesses came from. ``float32`` is the default everywhere.
/// ``int8`` is an opt-in that oneDNN grants where the processor has VNNI (`avx512_core_vnni`,
/// `avx2_vnni`; decided once per process, after `ONEDNN_MAX_CPU_ISA`): the network pass takes
/// about half the time, and near-tied classes can swap places. Its guesses are decided with a
/// calibration fitted on int8's own logits (``ClassifierCalibration/fittedInt8``); on the
/// evaluation set's folds by source their coarse accuracy and confident-and-right share are the
/// float network's and no photo's category differs (bias-corrected layers, the first one in
/// f32), but it is not the default yet (the Offline Classifier article has the figures).
/// ``ClassifierModel/precision`` tells which one runs.
public enum ClassifierPrecision: String, Sendable, Hashable, CaseIterable {
  /// 32-bit floats: logits within 1e-3 of the float64 reference.
  case float32
  /// 8-bit weights (a scale per output channel, biases corrected for their rounding) and
  /// activations (a calibrated scale per tensor), with the first convolution, pooling and the
  /// last layer in 32-bit floats.
  case int8
}
