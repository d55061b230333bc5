import DexKit
import DexTerminal
import Foundation
import Testing

/// What `dex` prints from entries (a model's reply, an imported archive) cannot drive the
/// terminal, and an out-of-range confidence cannot stop it.
@Suite struct TerminalTextTests {
  @Test func controlSequencesInAnEntryAreNotPrinted() {
    let hostile = "Fox\u{1B}[2J\u{1B}]0;pwned\u{07}\u{1B}]8;;https://evil.example/\u{1B}\\click"
    let entry = DexEntry(
      commonName: hostile, categoryRaw: "animal", scientificName: "Vulpes\u{9B}31m",
      summary: "A fox.\u{202E}txt.exe", facts: ["Fast\u{1B}[1A"], rarity: "Common",
      confidence: 1e300, localGuessLabel: "fox\u{7F}", dateDiscovered: Date())
    let card = EntryCard(entry: entry, isOffline: false).render()
    for bad: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}", "\u{7F}"] {
      #expect(!card.unicodeScalars.contains(bad), "U+\(String(bad.value, radix: 16))")
    }
    #expect(card.contains("Fox\u{FFFD}[2J"))
    #expect(card.contains("100%"))
    #expect(TerminalText.percent(.nan) == 0 && TerminalText.percent(-3) == 0)
    #expect(TerminalText.safe("line\nbreak", keepingNewlines: true) == "line\nbreak")
    #expect(TerminalText.safe("tab\there") == "tab here")
  }
}
