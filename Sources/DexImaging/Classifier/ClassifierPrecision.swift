/// The arithmetic the offline classifier's network runs in.
///
/// It exists so that a host that classifies many photos gets the faster arithmetic where it
/// costs no accuracy, can still choose one itself, and can tell (and log) which one its guesses
/// came from. ``automatic`` is the default everywhere: ``int8`` where oneDNN grants it (the
/// processor has VNNI, `avx512_core_vnni` or `avx2_vnni`, decided once per process after
/// `ONEDNN_MAX_CPU_ISA`; and the weights have calibrated ranges), ``float32`` elsewhere. There
/// the network pass takes about half the time of ``float32``, and its guesses are decided with a
/// calibration fitted on int8's own logits (``ClassifierCalibration/fittedInt8``); on the
/// evaluation set's folds by source their coarse accuracy and confident-and-right share are the
/// float network's and no photo's category differs (the Offline Classifier article has the
/// figures). Near-tied classes can swap places below the first. ``ClassifierModel/precision``
/// tells which one runs (never ``automatic``).
public enum ClassifierPrecision: String, Sendable, Hashable, CaseIterable {
  /// ``int8`` where oneDNN grants it, ``float32`` elsewhere: the default.
  case automatic
  /// 32-bit floats: logits within 1e-3 of the float64 reference; what a host asks for when it
  /// wants the same logits on every processor.
  case float32
  /// 8-bit weights (a scale per output channel, biases corrected for their rounding) and
  /// activations (a calibrated scale per tensor), with the first convolution, pooling and the
  /// last layer in 32-bit floats; ``float32`` where oneDNN does not grant it.
  case int8
}
