import DexModel
import Foundation

/// How ``ImageClassifier`` turns the network's whole 1000-way distribution into a calibrated
/// probability per ``/DexModel/DexCategory``.
///
/// ImageNet-1k gives categories very different shares of its label space (about 500 object
/// classes, a handful of plant classes), so summing the top few classes favours objects and
/// reports the sum as if it were a probability. The calibrated decision instead:
///
/// 1. sharpens (or softens) the class distribution with a class temperature `t`,
///    `p'(i) ∝ p(i)^(1/t)`, the same as dividing the network's logits by `t`;
/// 2. sums `p'` over **all** classes per category, `P(c)`;
/// 3. multiplies each by a prior weight `exp(logWeights[c])` that corrects for the category's
///    share of the label space;
/// 4. applies a temperature `T` to the result and renormalises:
///    `q(c) = (exp(logWeights[c]) · P(c))^(1/T) / Σ`.
///
/// `q(c)` of the winning category is the ``/DexModel/LocalGuess/confidence``: a probability
/// that the category is right, fitted (``fitted``) on the evaluation set in
/// `Benchmarks/DexImaging-classifier/evalset` by `Scripts/classifier-evalset.py`, which reports
/// its calibration error from fits that did not see their test photos: on the held-out half of
/// a random split and on five folds by source package. The fitted
/// calibration is the simple form: a class temperature of 0.01 (each category scored by its
/// best class), a prior per category and one temperature `T`.
public struct ClassifierCalibration: Sendable, Hashable {
  /// The log prior weight per category; a missing category weighs 0 (a factor of 1).
  public var logWeights: [DexCategory: Double]
  /// The temperature on the category distribution: above 1 softens, below 1 sharpens.
  public var temperature: Double
  /// The temperature on the class distribution before it is summed per category: below 1 lets
  /// the most probable classes count for more than a long tail of improbable ones.
  public var classTemperature: Double
  /// The probability a name below the category (a class, or a node of ``ClassifierHierarchy``)
  /// must reach before a guess is named after it (``/DexModel/LocalGuess/name``).
  public var namingThreshold: Double
  /// The views whose averaged logits this calibration was fitted on, and so the views
  /// ``ImageClassifier`` runs with it: ``ClassifierViews/centreCropAndSubject`` for
  /// ``fitted``, ``ClassifierViews/centreCrop`` (one pass) for ``fittedInt8`` and by default.
  public var views: ClassifierViews

  /// Creates a calibration; a temperature that is not a positive finite number becomes 1,
  /// non-finite weights become 0, and a naming threshold outside `0...1` is clamped (not a
  /// number: 1, so nothing is named).
  public init(
    logWeights: [DexCategory: Double], temperature: Double, classTemperature: Double = 1,
    namingThreshold: Double = 0.6, views: ClassifierViews = .centreCrop
  ) {
    self.views = views
    self.logWeights = logWeights.mapValues { $0.isFinite ? $0 : 0 }
    self.temperature = Self.sanitised(temperature)
    self.classTemperature = Self.sanitised(classTemperature)
    self.namingThreshold = namingThreshold.isNaN ? 1 : min(max(namingThreshold, 0), 1)
  }

  /// No correction: the plain sum of class probabilities per category.
  public static let identity = ClassifierCalibration(logWeights: [:], temperature: 1)

  private static func sanitised(_ temperature: Double) -> Double {
    temperature.isFinite && temperature > 0 ? temperature : 1
  }

  /// The calibrated probability of every category that holds any probability, given the
  /// probability of each class (``ClassificationLabel/confidence``) and its category.
  ///
  /// Categories without any class probability get none. The result sums to 1 unless no class
  /// has any probability (then it is empty).
  public func categoryProbabilities(
    _ distribution: [ClassificationLabel]
  ) -> [DexCategory: Double] {
    // log P(c) = log Σ p(i)^(1/t) over the category's classes, a log-sum-exp from the
    // category's own largest term: with a small class temperature p^(1/t) of a whole category
    // can be far below the smallest Double (e^-746), and that category's probability after
    // the temperature T is still not zero.
    let exponent = 1 / classTemperature
    var terms: [(category: DexCategory, value: Double)] = []
    terms.reserveCapacity(distribution.count)
    var largestOf: [DexCategory: Double] = [:]
    for label in distribution where label.confidence > 0 {
      let value = Foundation.log(label.confidence) * exponent
      terms.append((label.category, value))
      largestOf[label.category] = max(largestOf[label.category] ?? -.infinity, value)
    }
    guard !terms.isEmpty else { return [:] }
    var sums: [DexCategory: Double] = [:]
    for term in terms {
      sums[term.category, default: 0] += Foundation.exp(
        term.value - (largestOf[term.category] ?? 0))
    }
    var logMass: [DexCategory: Double] = [:]
    for (category, sum) in sums {
      logMass[category] = (largestOf[category] ?? 0) + Foundation.log(sum)
    }
    var scores: [DexCategory: Double] = [:]
    for (category, value) in logMass {
      scores[category] = (value + (logWeights[category] ?? 0)) / temperature
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
