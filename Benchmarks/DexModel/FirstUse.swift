// The one-off cost, in a fresh process, of the first uses of DexKeywordMatcher.standard: taking
// the matcher (what ClassifierLabelTable's default `matcher:` argument does for the bundled
// table, whose rows all name their category), then its first label that needs the WordNet
// lexicon, then a second one. Built by Benchmarks/DexModel/first-use.sh together with one
// revision's DexModel sources (one module, so no import is needed) and a Bundle.module stand-in.
// Prints: standard_ms first_label_ms second_label_us category.
import Foundation

@main
struct FirstUse {
  static func main() {
    let clock = ContinuousClock()
    func milliseconds(_ duration: Duration) -> Double {
      let (seconds, attoseconds) = duration.components
      return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
    var matcher: DexKeywordMatcher?
    let take = clock.measure { matcher = DexKeywordMatcher.standard }
    guard let matcher else { return }
    var first = DexCategory.unknown
    let firstLabel = clock.measure { first = matcher.category(forLabels: ["sidewinder"]) }
    var second = DexCategory.unknown
    let secondLabel = clock.measure { second = matcher.category(forLabels: ["bernese_mountain"]) }
    let times = String(
      format: "%.2f %.2f %.1f", milliseconds(take), milliseconds(firstLabel),
      milliseconds(secondLabel) * 1000)
    print("\(times) \(first.rawValue)/\(second.rawValue)")
  }
}
