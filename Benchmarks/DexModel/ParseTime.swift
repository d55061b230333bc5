// Parse-time benchmark for a 4 KB model reply; built by Benchmarks/DexModel/parse-time.sh
// together with one revision's DexModel sources (one module, so no import is needed).
import Foundation

/// A realistic reply of about 4 KB: prose around a fenced JSON entry with long text.
func reply() -> String {
  let sentence =
    "The red fox is the largest of the true foxes and one of the most widely "
    + "distributed members of the order Carnivora, present across the Northern Hemisphere. "
  let facts = (1...12).map { "\"Fact \($0): \(sentence.prefix(120))\"" }.joined(
    separator: ",\n    ")
  return """
    Here is the identification you asked for:

    ```json
    {
      "commonName": "Red Fox",
      "category": "animal",
      "scientificName": "Vulpes vulpes",
      "summary": "\(String(repeating: sentence, count: 14))",
      "facts": [
        \(facts)
      ],
      "rarity": "Common",
      "confidence": 0.93
    }
    ```
    Let me know if you need more!
    """
}

@main
struct ParseTime {
  static func main() {
    let text = reply()
    let json = String(text.drop(while: { $0 != "{" }))
    let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2000
    var sink = 0
    let clock = ContinuousClock()
    let scan = clock.measure {
      for _ in 0..<iterations {
        if let result = try? ScanResult(jsonString: text) { sink &+= result.facts.count }
      }
    }
    let read = clock.measure {
      for _ in 0..<iterations {
        if let document = try? LenientJSONReader().document(from: json) {
          sink &+= document.endOffset
        }
      }
    }
    func microseconds(_ duration: Duration) -> Double {
      let (seconds, attoseconds) = duration.components
      return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(iterations)
    }
    // Reply bytes, µs per ScanResult(jsonString:) on the reply, µs per LenientJSONReader
    // document on its JSON (from the first `{`), checksum.
    print(text.utf8.count, microseconds(scan), microseconds(read), sink)
  }
}
