// dex-demo: shows DexKit's model layer end to end without a network or a camera.
//
// For each bundled model reply it maps the on-device labels to a LocalGuess, parses the reply
// tolerantly into a ScanResult (falling back to the offline entry when the reply is unusable,
// exactly as the scanner does), builds a DexEntry and prints it as a card.

import DexKit
import DexTerminal
import Foundation

struct Sample: Decodable {
  let title: String
  let labels: [String]
  let reply: String
}

guard let url = Bundle.module.url(forResource: "replies", withExtension: "json"),
  let data = try? Data(contentsOf: url),
  let samples = try? JSONDecoder().decode([Sample].self, from: data)
else {
  try? FileHandle.standardError.write(
    contentsOf: Data("dex-demo: the bundled replies are missing\n".utf8))
  exit(1)
}

for sample in samples {
  print("\n▶ \(sample.title)")
  let category = DexCategory.matching(fromLabels: sample.labels)
  let guess = LocalGuess(category: category, label: sample.labels[0], confidence: 0.71)
  print("  Looks like \(EntryCard.article(for: category.title)) \(category.title)…")
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
  print(EntryCard(entry: entry, isOffline: offline).render())
}
