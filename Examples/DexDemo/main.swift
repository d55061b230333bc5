// dex-demo: shows DexKit's model layer end to end without a network or a camera.
//
// For each bundled model reply it maps the on-device labels to a LocalGuess, parses the reply
// tolerantly into a ScanResult (falling back to the offline entry when the reply is unusable,
// exactly as the scanner does), builds a DexEntry and prints it as a card.

import DexKit
import Foundation

struct Sample: Decodable {
  let title: String
  let labels: [String]
  let reply: String
}

func card(for entry: DexEntry, offline: Bool) -> String {
  let meter = String(repeating: "█", count: Int((entry.confidence * 10).rounded()))
    .padding(toLength: 10, withPad: "░", startingAt: 0)
  var lines = [
    "┌──────────────────────────────────────────────────────────",
    "│ \(entry.commonName)  [\(entry.category.title)]  ★ \(entry.rarity)",
  ]
  if !entry.scientificName.isEmpty { lines.append("│ \(entry.scientificName)") }
  lines.append("│ Confidence \(meter) \(Int((entry.confidence * 100).rounded()))%")
  lines.append("│ \(entry.summary)")
  if !entry.facts.isEmpty {
    lines.append("│ Field Notes:")
    lines += entry.facts.map { "│   • \($0)" }
  }
  if !entry.localGuessLabel.isEmpty { lines.append("│ On-device guess: \(entry.localGuessLabel)") }
  if offline { lines.append("│ (Identified offline — reconnect for full details)") }
  lines.append("└──────────────────────────────────────────────────────────")
  return lines.joined(separator: "\n")
}

guard let url = Bundle.module.url(forResource: "replies", withExtension: "json"),
  let data = try? Data(contentsOf: url),
  let samples = try? JSONDecoder().decode([Sample].self, from: data)
else {
  FileHandle.standardError.write(Data("dex-demo: the bundled replies are missing\n".utf8))
  exit(1)
}

for sample in samples {
  print("\n▶ \(sample.title)")
  let category = DexCategory.matching(fromLabels: sample.labels)
  let guess = LocalGuess(category: category, label: sample.labels[0], confidence: 0.71)
  print(
    "  Looks like a\(["a", "e", "i", "o", "u"].contains(category.title.lowercased().first.map(String.init) ?? "") ? "n" : "") \(category.title)…"
  )
  let result: ScanResult
  var offline = false
  do {
    result = try ScanResult(jsonString: sample.reply)
  } catch {
    print("  Cloud reply rejected: \(error.localizedDescription)")
    result = ScanResult.offlineFallback(for: guess)
    offline = true
  }
  let entry = DexEntry(scan: result, localGuess: guess)
  print(card(for: entry, offline: offline))
}
