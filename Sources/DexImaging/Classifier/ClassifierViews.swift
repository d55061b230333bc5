/// Which inputs the network sees for one guess: their logits are averaged before calibration.
///
/// A ``ClassifierCalibration`` is fitted on the logits of one choice of views and holds it
/// (``ClassifierCalibration/views``), so that ``ImageClassifier`` always runs the views its
/// calibration was fitted on: a probability fitted on averaged logits does not hold for the
/// logits of one pass, nor the other way round.
public enum ClassifierViews: String, Sendable, Hashable, CaseIterable {
  /// The standard centre crop alone (``ImagePreprocessor/cropRegion(width:height:)``): one pass
  /// per photo.
  case centreCrop
  /// The centre crop and, on a plain background, the subject's square
  /// (``ImagePreprocessor/subjectSquare(in:)``), their logits averaged: a second pass on photos
  /// with a plain border only, one pass elsewhere. A cut-out, a product shot or an object on a
  /// table cloth then fills the network's input instead of a fraction of it.
  case centreCropAndSubject
}
