import DexModel

extension ClassifierHierarchy {
  /// The most specific name of `category` the classifier is sure of: of the category's best
  /// class and every node of the category, the one with the fewest classes whose probability
  /// reaches `threshold` (ties: the more probable), or `nil` when none does (and always for
  /// ``/DexModel/DexCategory/unknown``, whose classes are scenery and people).
  ///
  /// A node's probability is the network's probability pooled over its classes, capped by
  /// `categoryConfidence` (the calibrated probability of the category): a name is never surer
  /// than its category, and a category with few classes (8 plants) does not hand its whole
  /// probability to its best class (a rose is no "Daisy" because daisy is the only flower
  /// class with any probability).
  func specificName(
    in distribution: [ClassificationLabel], category: DexCategory, categoryConfidence: Double,
    threshold: Double
  ) -> (name: String, confidence: Double)? {
    var probability: [String: Double] = [:]
    var best: ClassificationLabel?
    for label in distribution where label.category == category {
      probability[label.identifier, default: 0] += label.confidence
      if label.confidence > (best?.confidence ?? -1) { best = label }
    }
    guard best != nil, category != .unknown, categoryConfidence.isFinite else { return nil }
    var chosen: (name: String, confidence: Double, size: Int)?
    func consider(_ name: String, mass: Double, size: Int) {
      let confidence = min(categoryConfidence, mass, 1)
      guard confidence >= threshold, !name.isEmpty else { return }
      if let current = chosen,
        size > current.size || (size == current.size && confidence <= current.confidence)
      {
        return
      }
      chosen = (name, confidence, size)
    }
    if let best {
      consider(Self.titleCased(best.label), mass: best.confidence, size: 1)
    }
    for node in nodes where node.category == category {
      var mass = 0.0
      for identifier in node.classes { mass += probability[identifier] ?? 0 }
      consider(node.name, mass: mass, size: node.classes.count)
    }
    return chosen.map { ($0.name, $0.confidence) }
  }

  /// A class label as a name: cleaned, and the first letter of every word upper-cased (the rest
  /// kept, so "African grey parrot" keeps its capital and "McDonald" its inner one).
  static func titleCased(_ label: String) -> String {
    ClassifierLabelTable.cleanedLabel(label).split(separator: " ").map {
      $0.prefix(1).uppercased() + $0.dropFirst()
    }.joined(separator: " ")
  }
}
