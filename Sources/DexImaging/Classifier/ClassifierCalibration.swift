import DexModel
import Foundation

/// How ``ImageClassifier`` turns the network's whole 1000-way distribution into a calibrated
/// probability per ``/DexModel/DexCategory``.
///
/// ImageNet-1k gives categories very different shares of its label space (about 500 object
/// classes, a handful of plant classes), so summing the top few classes favours objects and
/// reports the sum as if it were a probability. The calibrated decision instead:
///
/// 1. sums the probability of **all** classes per category, `P(c)`;
/// 2. multiplies each by a prior weight `exp(logWeights[c])` that corrects for the category's
///    share of the label space;
/// 3. applies a temperature `T` to the result and renormalises:
///    `q(c) = (exp(logWeights[c]) · P(c))^(1/T) / Σ`.
///
/// `q(c)` of the winning category is the ``/DexModel/LocalGuess/confidence``: a probability
/// that the category is right, fitted (``fitted``) on the tune split of the evaluation set in
/// `Benchmarks/DexImaging-classifier/evalset` by `Scripts/classifier-evalset.py`, which also
/// reports its calibration error on the held-out split.
public struct ClassifierCalibration: Sendable, Hashable {
  /// The log prior weight per category; a missing category weighs 0 (a factor of 1).
  public var logWeights: [DexCategory: Double]
  /// The temperature on the category distribution: above 1 softens, below 1 sharpens.
  public var temperature: Double

  /// Creates a calibration; a temperature that is not a positive finite number becomes 1, and
  /// non-finite weights become 0.
  public init(logWeights: [DexCategory: Double], temperature: Double) {
    self.logWeights = logWeights.mapValues { $0.isFinite ? $0 : 0 }
    self.temperature = temperature.isFinite && temperature > 0 ? temperature : 1
  }

  /// No correction: the plain sum of class probabilities per category.
  public static let identity = ClassifierCalibration(logWeights: [:], temperature: 1)

  /// The calibrated probability of every category that holds any probability, given the
  /// probability of each class (``ClassificationLabel/confidence``) and its category.
  ///
  /// Categories without any class probability get none. The result sums to 1 unless `labels`
  /// is empty (then it is empty).
  public func categoryProbabilities(_ labels: [ClassificationLabel]) -> [DexCategory: Double] {
    var mass: [DexCategory: Double] = [:]
    for label in labels where label.confidence > 0 {
      mass[label.category, default: 0] += label.confidence
    }
    guard !mass.isEmpty else { return [:] }
    var scores: [DexCategory: Double] = [:]
    for (category, total) in mass {
      scores[category] = (Foundation.log(total) + (logWeights[category] ?? 0)) / temperature
    }
    let top = scores.values.max() ?? 0
    var sum = 0.0
    for (category, score) in scores {
      let e = Foundation.exp(score - top)
      scores[category] = e
      sum += e
    }
    return scores.mapValues { $0 / sum }
  }
}
