/// The arithmetic the offline classifier's network runs in.
///
/// It exists so that a host that classifies many photos can trade exactness for speed, and
/// tell (and log) which one its guesses came from. ``float32`` is the default everywhere.
/// ``int8`` is an opt-in that oneDNN grants where the processor has VNNI (`avx512_core_vnni`,
/// `avx2_vnni`; decided once per process, after `ONEDNN_MAX_CPU_ISA`): the network pass takes
/// about half the time, but logits move by up to about 0.5 (0.46 on the test photos). Its
/// guesses are decided with a calibration fitted on int8's own logits
/// (``ClassifierCalibration/fittedInt8``); on the evaluation set their coarse accuracy and
/// confident-and-right share are within half a point of the float network's, but the category
/// of 7 of 308 photos differs (all of them guesses below 0.65, plants most), which is why it is
/// not the default (the Offline Classifier article has the figures).
/// ``ClassifierModel/precision`` tells which one runs.
public enum ClassifierPrecision: String, Sendable, Hashable, CaseIterable {
  /// 32-bit floats: logits within 1e-3 of the float64 reference.
  case float32
  /// 8-bit weights (a scale per output channel) and activations (a calibrated scale per
  /// tensor), with pooling and the last layer in 32-bit floats.
  case int8
}
