import DexKit

/// A Dex entry drawn for a terminal: name, category badge, rarity, confidence meter, summary
/// and field notes. Shared by `dex` and `dex-demo`.
public struct EntryCard: Sendable {
  /// The entry to draw.
  public let entry: DexEntry
  /// Whether to add the "identified offline" line.
  public let isOffline: Bool

  /// Creates a card for `entry`.
  public init(entry: DexEntry, isOffline: Bool) {
    self.entry = entry
    self.isOffline = isOffline
  }

  /// "a" or "an" before `word`, for "Looks like an Animal…".
  public static func article(for word: String) -> String {
    guard let first = word.lowercased().first else { return "a" }
    return "aeiou".contains(first) ? "an" : "a"
  }

  /// A bar of `width` cells, filled in proportion to `confidence` (0...1).
  public static func meter(_ confidence: Double, width: Int = 10) -> String {
    let filled = (width * TerminalText.percent(confidence) + 50) / 100
    return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
  }

  /// Model or archive text, safe for a terminal (see ``TerminalText``).
  private func safe(_ text: String) -> String { TerminalText.safe(text) }

  /// The card as lines of text, ready to print.
  public func render() -> String {
    let rule = String(repeating: "─", count: 60)
    var lines = [
      "┌\(rule)",
      "│ \(safe(entry.commonName))   [\(entry.category.title)]   ★ \(entry.dexRarity.rawValue)",
    ]
    if !entry.scientificName.isEmpty { lines.append("│ \(safe(entry.scientificName))") }
    lines.append(
      "│ Confidence \(Self.meter(entry.confidence)) \(TerminalText.percent(entry.confidence))%")
    lines.append("│")
    lines += wrap(safe(entry.summary), width: 58).map { "│ \($0)" }
    if !entry.facts.isEmpty {
      lines.append("│")
      lines.append("│ Field Notes")
      for fact in entry.facts {
        lines += wrap(safe(fact), width: 54).enumerated().map {
          "│   \($0.offset == 0 ? "•" : " ") \($0.element)"
        }
      }
    }
    if let text = entry.recognizedText, !text.isEmpty {
      lines.append("│")
      lines.append("│ Text in the photo")
      for line in text.split(separator: "\n") {
        lines += wrap(safe(String(line)), width: 56).map { "│   \($0)" }
      }
    }
    if !entry.localGuessLabel.isEmpty {
      lines.append("│"); lines.append("│ On-device guess: \(safe(entry.localGuessLabel))")
    }
    if isOffline {
      lines.append("│ (identified offline — reconnect and scan again for the full entry)")
    }
    lines.append("└\(rule)")
    return lines.joined(separator: "\n")
  }

  private func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      if current.count + word.count + 1 > width, !current.isEmpty {
        lines.append(current)
        current = ""
      }
      current += current.isEmpty ? String(word) : " " + word
    }
    if !current.isEmpty { lines.append(current) }
    return lines
  }
}
