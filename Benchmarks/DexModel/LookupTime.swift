// Label → category look-up time of the standard matcher (keywords + WordNet lexicon) beside
// the keywords alone, over the taxonomy fixtures' labels; built by
// Benchmarks/DexModel/lookup-time.sh together with DexModel's sources (one module, so no
// import is needed) and a Bundle.module stand-in pointing at Sources/DexModel.
import Foundation

@main
struct LookupTime {
  static func labels(_ paths: [String]) -> [String] {
    paths.flatMap { path -> [String] in
      guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
      return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
        $0.split(separator: "\t").first.map(String.init)
      }
    }
  }

  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let rounds = Int(arguments.first ?? "") ?? 15
    let labels = labels(Array(arguments.dropFirst()))
    guard !labels.isEmpty else {
      print("usage: lookup-time ROUNDS FIXTURE.tsv...")
      return
    }
    let clock = ContinuousClock()
    var lexicon = DexLexicon()
    // `count` reads the lexicon where it is deferred (and compiles against older revisions).
    let load = clock.measure {
      lexicon = DexLexicon.wordNet
      _ = lexicon.count
    }
    var keywordsOnly = DexKeywordMatcher.standard
    keywordsOnly.lexicon = nil
    let standard = DexKeywordMatcher.standard
    func microseconds(_ duration: Duration, _ count: Int) -> Double {
      let (seconds, attoseconds) = duration.components
      return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(count)
    }
    var sink = 0
    _ = labels.map { standard.category(forLabels: [$0]) }  // warm up
    print(
      "round keywords_us keywords_lexicon_us lexicon_alone_us (per label, \(labels.count) labels)")
    var keywordTimes: [Double] = []
    var lexiconTimes: [Double] = []
    var aloneTimes: [Double] = []
    for round in 1...rounds {
      let keywords = clock.measure {
        for label in labels { sink &+= keywordsOnly.category(forLabels: [label]).hashValue & 1 }
      }
      let withLexicon = clock.measure {
        for label in labels { sink &+= standard.category(forLabels: [label]).hashValue & 1 }
      }
      let alone = clock.measure {
        for label in labels { sink &+= lexicon.category(for: label)?.hashValue ?? 0 & 1 }
      }
      keywordTimes.append(microseconds(keywords, labels.count))
      lexiconTimes.append(microseconds(withLexicon, labels.count))
      aloneTimes.append(microseconds(alone, labels.count))
      print(
        round,
        String(
          format: "%.2f %.2f %.2f", keywordTimes.last ?? 0, lexiconTimes.last ?? 0,
          aloneTimes.last ?? 0))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    print(
      String(
        format:
          "median per label: keywords only %.2f us, keywords + lexicon %.2f us (ratio %.2f), "
          + "lexicon alone (DexLexicon.category(for:)) %.2f us; lexicon load %.1f ms, "
          + "%d entries; checksum %d",
        median(keywordTimes), median(lexiconTimes), median(lexiconTimes) / median(keywordTimes),
        median(aloneTimes), microseconds(load, 1) / 1000, lexicon.count, sink))
  }
}
