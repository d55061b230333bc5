import Testing

/// The places where a kernel's output disagrees with its reference.
///
/// A kernel comparison covers thousands of values. Recording one issue per value, or comparing
/// two whole arrays in one expectation, buries a failure under hundreds of lines or two printed
/// arrays; this collects how many values are wrong and describes the first few, and
/// ``expectNone(_:sourceLocation:)`` turns that into a single issue.
struct Mismatches {
  /// How many values disagreed.
  private(set) var count = 0
  /// Descriptions of the first few.
  private var first: [String] = []

  /// Counts one more disagreement when `agrees` is false, keeping the description of the first
  /// five.
  mutating func check(_ agrees: Bool, _ description: @autoclosure () -> String) {
    guard !agrees else { return }
    count += 1
    if first.count < 5 { first.append(description()) }
  }

  /// Records one issue, naming `what` was compared, if any value disagreed.
  func expectNone(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
      count == 0,
      "\(what): \(count) values disagree; first: \(first.joined(separator: "; "))",
      sourceLocation: sourceLocation)
  }

  /// The indices where `got` and `expected` differ, and a length mismatch.
  static func between<T: Equatable>(_ got: [T], _ expected: [T]) -> Mismatches {
    var mismatches = Mismatches()
    mismatches.check(
      got.count == expected.count, "\(got.count) values where \(expected.count) were expected")
    for (index, (a, b)) in zip(got, expected).enumerated() {
      mismatches.check(a == b, "[\(index)] \(a) vs \(b)")
    }
    return mismatches
  }

  /// The indices where `got` and `expected` differ in their bits (so NaN equals NaN and 0 does
  /// not equal −0).
  static func bits(_ got: [Float], _ expected: [Float]) -> Mismatches {
    between(got.map(ExactFloat.init), expected.map(ExactFloat.init))
  }

  /// A float compared by its bits and printed as a number.
  private struct ExactFloat: Equatable, CustomStringConvertible {
    let value: Float
    var description: String { "\(value)" }
    static func == (a: Self, b: Self) -> Bool { a.value.bitPattern == b.value.bitPattern }
  }
}
