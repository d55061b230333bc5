import DexExamplesTestSupport
import DexKit
import DexTerminal
import Foundation
import Logging
import Testing

#if canImport(Glibc)
  import Glibc
#endif

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
    // Line and paragraph separators: a log viewer or an editor breaks the line there.
    #expect(
      TerminalText.safe("a\u{2028}b\u{2029}c", keepingNewlines: true) == "a\u{FFFD}b\u{FFFD}c")
  }

  /// Log lines (PixScan's and dex's, on standard error) carry file names and error texts: the
  /// terminal handler cleans the message, the event's, the provider's and the handler's
  /// metadata, nested values and the error's text before `StreamLogHandler` writes them.
  @Test func controlSequencesInALogLineAreNotWritten() {
    struct Failure: Error, CustomStringConvertible {
      var description: String { "bad file \u{1B}]0;title\u{07}" }
    }
    final class Capture: TextOutputStream, @unchecked Sendable {
      private let lock = NSLock()
      private var text = ""
      var written: String { lock.sync { text } }
      func write(_ string: String) { lock.sync { text += string } }
    }
    let capture = Capture()
    var handler = TerminalLogHandler(
      wrapping: StreamLogHandler(
        label: "pixscan", stream: capture,
        metadataProvider: .init { ["provided": "from \u{1B}[31mprovider"] }))
    handler.metadata["folder"] = "/photos/\u{1B}[2J"
    let logger = Logger(label: "pixscan") { _ in handler }
    logger.warning(
      "Text recognition failed for \u{9B}31m\nfake [error] line", error: Failure(),
      metadata: [
        "path": "/photos/evil\u{1B}[2J\u{202E}gpj.exe", "list": ["a\u{7F}", "b"],
        "nested": ["key\u{1B}": "value\u{1B}[1A"],
      ])
    let line = capture.written
    #expect(line.filter { $0 == "\n" }.count == 1, "one line: \(line)")
    for bad: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}", "\u{7F}"] {
      #expect(!line.unicodeScalars.contains(bad), "U+\(String(bad.value, radix: 16)) in \(line)")
    }
    #expect(line.contains("evil\u{FFFD}[2J"), "\(line)")
    #expect(line.contains("bad file \u{FFFD}]0;title"), "the error's text is kept, cleaned")
    #expect(line.contains("error.type"), "the error's type, as StreamLogHandler writes it")
    #expect(line.contains("/photos/\u{FFFD}[2J"), "the handler's own metadata")
    #expect(line.contains("from \u{FFFD}[31mprovider"), "the provider's metadata")
  }

  /// The gallery escapes by Unicode scalar: a quote that a combining mark follows (one Swift
  /// `Character`, still a quote to a browser) cannot end an attribute.
  @Test func aQuoteWithACombiningMarkIsEscapedForHTML() {
    let hostile = "Fox\"\u{301} onmouseover=alert(document.domain)//"
    let escaped = HTMLText.escape(hostile)
    #expect(!escaped.unicodeScalars.contains("\""))
    #expect(escaped.hasPrefix("Fox&quot;\u{301} onmouseover"))
    #expect(HTMLText.escape("<a href='x'>&") == "&lt;a href=&#39;x&#39;&gt;&amp;")
    #expect(HTMLText.escape("Café — 猫") == "Café — 猫")
  }

  /// A photo's file name cannot drive the terminal when `dex scan` prints it.
  @Test func aPhotoFileNameIsPrintedSafely() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let named = dex.store.appendingPathComponent("cat\u{1B}]0;pwned\u{07}\u{1B}[2J.jpg")
    try FileManager.default.createDirectory(
      at: dex.store, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: try photoPath("cat")), to: named)
    let scan = try await dex("scan", "--offline", "--dry-run", named.path)
    #expect(scan.status == 0, "\(scan.error)")
    #expect(!scan.output.unicodeScalars.contains("\u{1B}"))
    #expect(!scan.output.unicodeScalars.contains("\u{07}"))
    #expect(scan.output.contains("▶ cat"))
  }

  /// An error message that quotes a name with a line break cannot pass for another `dex:` line
  /// on standard error: every line after its first is indented.
  @Test func anErrorCannotFakeAnotherLine() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let missing = dex.store.appendingPathComponent("gone.jpg\ndex: saved the entry\n.jpg").path
    let scan = try await dex("scan", "--offline", missing)
    #expect(scan.status == 66, "\(scan.error)")
    let lines = scan.error.split(separator: "\n")
    #expect(lines.count >= 2, "\(scan.error)")
    #expect(lines.filter { $0.hasPrefix("dex:") }.count == 1, "\(scan.error)")
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "\(scan.error)")
  }

  /// Files named on the command line are read within a bound: a FIFO, a device and a file over
  /// the bound are refused before anything is read, a file within it is read whole.
  @Test func localFilesAreReadWithinTheirBound() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("local-file-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = folder.appendingPathComponent("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: LocalFile.Refusal.self) { try LocalFile.read(fifo, maximumByteCount: 100) }
    #expect(throws: LocalFile.Refusal.self) {
      try LocalFile.read("/dev/zero", maximumByteCount: 100)
    }
    let exact = folder.appendingPathComponent("exact")
    try Data(repeating: 7, count: 100).write(to: exact)
    #expect(try LocalFile.read(exact.path, maximumByteCount: 100) == Data(repeating: 7, count: 100))
    let refused = #expect(throws: LocalFile.Refusal.self) {
      try LocalFile.read(exact.path, maximumByteCount: 99)
    }
    #expect(refused?.description.contains("over the 99-byte limit") == true)
    let empty = folder.appendingPathComponent("empty")
    try Data().write(to: empty)
    #expect(try LocalFile.read(empty.path, maximumByteCount: 10).isEmpty)
    #expect(throws: LocalFile.Refusal.self) {
      try LocalFile.read(folder.appendingPathComponent("missing").path, maximumByteCount: 10)
    }
  }

  /// `dex scan` refuses a photo file over the decoder's byte limit before reading it.
  @Test func anOversizedPhotoFileIsRefusedBeforeItIsRead() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    try FileManager.default.createDirectory(at: dex.store, withIntermediateDirectories: true)
    let huge = dex.store.appendingPathComponent("huge.jpg")
    #expect(FileManager.default.createFile(atPath: huge.path, contents: Data()))
    #expect(truncate(huge.path, 101 << 20) == 0)  // sparse: no disk, no time
    let scan = try await dex("scan", "--offline", "--dry-run", huge.path)
    #expect(scan.status != 0)
    #expect(scan.error.contains("over the \(100 << 20)-byte limit"), "\(scan.error)")
  }

  /// `--json` output keeps what a card would replace out of the terminal, as escapes that mean
  /// the same to a JSON parser.
  @Test func jsonOutputEscapesWhatTheCardReplaces() throws {
    let name = "A\u{9B}2J\u{202E}B\u{7F}C\u{2028}"
    let encoded = try JSONEncoder().encode(["name": name])
    let printed = TerminalText.json(encoded)
    #expect(
      !printed.unicodeScalars.contains { [0x9B, 0x202E, 0x7F, 0x2028].contains($0.value) },
      "\(printed)")
    #expect(
      printed.contains("\\u009B") && printed.contains("\\u202E") && printed.contains("\\u2028"))
    let parsed = try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: String]
    #expect(parsed?["name"] == name)
  }
}
