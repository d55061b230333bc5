import DexTestTraits
import Foundation
import Testing

@testable import DexModel

@Suite("WordNet lexicon", .offCooperativePool)
struct DexLexiconTests {
  @Test func theBundledLexiconLoads() throws {
    let loaded = try DexLexicon.loadWordNet()
    #expect(loaded.isLoaded && DexLexicon.wordNet.isLoaded)
    #expect(loaded.count > 50_000, "\(loaded.count) entries")
    #expect(DexLexicon.wordNet.count == loaded.count)
    #expect(DexKeywordMatcher.standard.lexicon?.count == DexLexicon.wordNet.count)
  }

  @Test func theBundledLexiconIsDeferred() {
    guard case .deferred = DexLexicon.wordNet.storage else {
      Issue.record("DexLexicon.wordNet is read when created")
      return
    }
    guard case .deferred = DexKeywordMatcher.standard.lexicon?.storage else {
      Issue.record("DexKeywordMatcher.standard does not share the deferred lexicon")
      return
    }
  }

  @Test(
    "Tricky labels resolve through the lexicon",
    arguments: [
      // Breeds, as identifiers and as names.
      ("bernese_mountain", DexCategory.animal), ("australian_shepherd", .animal),
      ("Dandie Dinmont", .animal), ("Newfoundland", .animal), ("bedlington_terrier", .animal),
      ("Rhodesian ridgeback", .animal),
      // Words WordNet lacks, in the hand vocabulary.
      ("bichon", .animal), ("bichon_frise", .animal), ("biscotti", .food), ("caprese", .food),
      ("insalata caprese", .food), ("edamame", .food),
      // Dishes and foods.
      ("casserole", .food), ("ice lolly", .food), ("ice_lollies", .food), ("iceLolly", .food),
      ("Crème brûlée", .food), ("bouillabaisse", .food), ("gazpacho", .food),
      // Herbs: WordNet's first sense is the plant; either is a right answer for a photo.
      ("cilantro", .plant), ("dill", .plant), ("chives", .plant),
      // Groups.
      ("cephalopod", .animal), ("cetacean", .animal), ("nematode", .animal),
      ("cephalopods", .animal), ("ungulate", .animal), ("passerine", .bird),
      // Snakes and turtles.
      ("sidewinder", .reptile), ("loggerhead", .reptile), ("leatherback", .reptile),
      ("hawksbill", .reptile), ("ridley", .reptile),
      // Fungi, minerals, plants WordNet knows and the keywords do not.
      ("chanterelle", .fungus), ("mica schist", .mineral), ("feldspar", .mineral),
      ("wolfsbane", .plant), ("olm", .animal),
      // False friends: qualifiers and closed compounds.
      ("crane_construction", .object), ("cricket_sport", .object), ("fishtank", .object),
      ("cricket_insect", .insect), ("crane_bird", .bird), ("bird_other", .bird),
      ("bass_musical_instrument", .object), ("Cake stand", .object), ("Wine rack", .object),
      ("scale, weighing machine", .object), ("titi, titi monkey", .animal),
      // "kite" is the toy (WordNet's most frequent sense); the bird by its name or its gloss.
      ("kite", .object), ("kites", .object), ("kite (bird of prey)", .bird), ("red_kite", .bird),
      ("black kite", .bird), ("swallow-tailed kite", .bird),
      // "mouse" stays the animal (WordNet's most frequent sense); the qualified one is not.
      ("mouse", .animal), ("computer mouse", .object),
      // Not collectable: a person, a road.
      ("loggerhead, blockhead, dunce", .reptile), ("street", .unknown), ("shepherd", .unknown),
      ("zzdexprobe", .unknown),
    ])
  func trickyLabel(label: String, expected: DexCategory) {
    #expect(DexCategory.matching(fromLabels: [label]) == expected, "label: \(label)")
  }

  @Test func keywordsWinOverTheLexicon() {
    // WordNet's most frequent sense of "chicken" is the meat; the keyword says bird.
    #expect(DexLexicon.wordNet.category(for: "chicken") == .food)
    #expect(DexCategory.matching(fromLabels: ["chicken"]) == .bird)
    // WordNet files "crane" as a machine more often than a bird; the keyword says bird.
    #expect(DexLexicon.wordNet.category(for: "crane") == .object)
    #expect(DexCategory.matching(fromLabels: ["crane"]) == .bird)
  }

  @Test func hostKeywordsWinOverTheLexicon() {
    #expect(DexCategory.matching(fromLabels: ["olm"]) == .animal)
    let matcher = DexKeywordMatcher.standard.addingKeywords(["=olm"], for: .reptile)
    #expect(matcher.category(forLabels: ["olm"]) == .reptile)
    #expect(matcher.lexicon?.count == DexLexicon.wordNet.count, "adding keywords keeps it")
    var plain = matcher
    plain.lexicon = nil
    #expect(plain.category(forLabels: ["sidewinder"]) == .unknown)
  }

  @Test func aHostLexiconIsUsed() throws {
    let lexicon = DexLexicon(
      entries: ["Zz Probe Fish": .fish, "zzwidget": .object],
      compoundHeads: ["zzhound": .animal])
    let matcher = DexKeywordMatcher(rules: [], lexicon: lexicon)
    #expect(matcher.category(forLabels: ["zz_probe_fishes"]) == .fish)
    #expect(matcher.category(forLabels: ["zzwidgets"]) == .object)
    #expect(matcher.category(forLabels: ["spotted zzhound"]) == .animal)
    #expect(matcher.category(forLabels: ["zzhound"]) == .unknown, "a head is not an entry")
    #expect(lexicon.count == 2)
  }

  @Test func theTextFormatIsReadAndCheckedLineByLine() throws {
    let lexicon = try DexLexicon(text: "# comment\nsea urchin\ta\n*shepherd\ta\nfish tank\to\n")
    #expect(lexicon.count == 2)
    #expect(lexicon.category(for: "sea urchins") == .animal)
    #expect(lexicon.category(for: "purple sea urchin") == .animal)
    #expect(lexicon.category(for: "australian_shepherd") == .animal)
    #expect(lexicon.category(for: "fishtank") == .object)
    #expect(throws: DexLexiconError.malformedLine(line: 2)) {
      try DexLexicon(text: "ok\ta\nno tab here\n")
    }
    #expect(throws: DexLexiconError.malformedLine(line: 1)) { try DexLexicon(text: "word\tq\n") }
    #expect(throws: DexLexiconError.malformedLine(line: 1)) { try DexLexicon(text: "word\tab\n") }
    #expect(throws: DexLexiconError.malformedLine(line: 1)) { try DexLexicon(text: "\ta\n") }
  }

  @Test func normalisation() {
    #expect(LabelText.splittingCamelCase("iceLolly") == "ice Lolly")
    #expect(LabelText.splittingCamelCase("bigCatFood") == "big Cat Food")
    #expect(LabelText.splittingCamelCase("PlayStation") == "PlayStation")
    #expect(LabelText.splittingCamelCase("iPod") == "iPod")
    #expect(LabelText.splittingCamelCase("tree frog") == "tree frog")
    let words = LabelText("crane_construction").segments[0]
    #expect(LabelText.qualified(words).category == .object)
    let other = LabelText.qualified(LabelText("bird_other").segments[0])
    #expect(other.category == nil && other.words.map(\.raw) == ["bird"])
    let fishtank = DexLexicon.wordNet.splittingClosedCompound(LabelText("fishtank").segments[0])
    #expect(fishtank.map(\.raw) == ["fish", "tank"])
    let goldfish = DexLexicon.wordNet.splittingClosedCompound(LabelText("goldfish").segments[0])
    #expect(goldfish.map(\.raw) == ["goldfish"], "a known word is never split")
  }

  // MARK: Reading on first use

  /// Counts calls from any thread.
  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
      lock.lock()
      count += 1
      lock.unlock()
    }
    var value: Int {
      lock.lock()
      defer { lock.unlock() }
      return count
    }
  }

  static func deferredLexicon(
    counting counter: Counter, _ result: Result<LexiconTable, DexLexiconError>
  ) -> DexLexicon {
    DexLexicon(
      storage: .deferred(
        DeferredLexiconTable {
          counter.increment()
          return result
        }))
  }

  static let sidewinderTable = LexiconTable(entries: ["sidewinder": .reptile], heads: [:])

  @Test func aDeferredLexiconIsReadOnTheFirstLabelThatNeedsIt() {
    let reads = Counter()
    let lexicon = Self.deferredLexicon(counting: reads, .success(Self.sidewinderTable))
    let matcher = DexKeywordMatcher(rules: DexKeywordMatcher.standard.rules, lexicon: lexicon)
    #expect(reads.value == 0 && !lexicon.isLoaded, "creating a matcher reads nothing")
    #expect(matcher.category(forLabels: ["Plant", "birds"]) == .plant)
    #expect(matcher.category(for: "Fungi") == .fungus)
    #expect(reads.value == 0, "a category's own name needs no lexicon")
    #expect(matcher.category(forLabels: ["sidewinder"]) == .reptile)
    #expect(matcher.category(forLabels: ["zzdexprobe", "dog"]) == .animal)
    #expect(reads.value == 1 && lexicon.isLoaded)
  }

  @Test func concurrentFirstUsesReadOnce() async {
    let reads = Counter()
    let lexicon = Self.deferredLexicon(counting: reads, .success(Self.sidewinderTable))
    let matcher = DexKeywordMatcher(rules: [], lexicon: lexicon)
    let answers = await withTaskGroup(of: DexCategory.self) { group in
      for _ in 0..<16 { group.addTask { matcher.category(forLabels: ["sidewinders"]) } }
      return await group.reduce(into: [DexCategory]()) { $0.append($1) }
    }
    #expect(answers == Array(repeating: .reptile, count: 16))
    #expect(reads.value == 1)
  }

  @Test func aLexiconThatCannotBeReadLeavesTheKeywordsAndSaysWhy() {
    let reads = Counter()
    let lexicon = Self.deferredLexicon(
      counting: reads, .failure(.resourceMissing(name: "Lexicon/WordNetLexicon.txt")))
    let matcher = DexKeywordMatcher(rules: DexKeywordMatcher.standard.rules, lexicon: lexicon)
    #expect(matcher.category(forLabels: ["golden retriever"]) == .animal)
    #expect(matcher.category(forLabels: ["sidewinder"]) == .unknown)
    #expect(lexicon.isEmpty && lexicon.count == 0)
    #expect(throws: DexLexiconError.resourceMissing(name: "Lexicon/WordNetLexicon.txt")) {
      try lexicon.loaded()
    }
    #expect(reads.value == 1, "a failed read is not retried on every label")
    let message = DexLexiconError.resourceMissing(name: "Lexicon/WordNetLexicon.txt")
      .description
    #expect(message == "DexModel's bundle has no lexicon resource Lexicon/WordNetLexicon.txt")
  }

  // MARK: Reading files

  /// A fresh directory, removed after `body`.
  static func withDirectory(_ body: (URL) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("dexlexicon-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory)
  }

  /// The lexicon resource as committed (Sources/DexModel/Lexicon), found from this file.
  static func bundledLexiconData() throws -> Data {
    let url = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Sources/DexModel/Lexicon/WordNetLexicon.txt")
    return try Data(contentsOf: url)
  }

  @Test func aLexiconFileIsRead() throws {
    try Self.withDirectory { directory in
      let original = try Self.bundledLexiconData()
      let url = directory.appendingPathComponent("WordNetLexicon.txt")
      try original.write(to: url)
      let lexicon = try DexLexicon(contentsOf: url)
      #expect(lexicon.count == DexLexicon.wordNet.count)
      #expect(lexicon.category(for: "sidewinder") == .reptile)
    }
  }

  @Test func aBrokenLexiconFileThrowsATypedError() throws {
    try Self.withDirectory { directory in
      let original = try Self.bundledLexiconData()
      func read(_ name: String, _ data: Data?) -> DexLexiconError? {
        let url = directory.appendingPathComponent(name)
        if let data { try? data.write(to: url) }
        do {
          _ = try DexLexicon(contentsOf: url)
          return nil
        } catch {
          return error
        }
      }
      #expect(
        read("missing.txt", nil) == .unreadableFile(name: "missing.txt", reason: "no such file"))
      #expect(read("empty.txt", Data()) == .noEntries(name: "empty.txt"))
      // Cut right after the header comment: no entry left.
      let header = try #require(original.firstIndex(of: UInt8(ascii: "\n")))
      #expect(
        read("header.txt", original[...header]) == .noEntries(name: "header.txt"))
      // Cut two bytes into a line, half way through: that line is no entry.
      let middle = try #require(
        original[(original.startIndex + original.count / 2)...].firstIndex(of: UInt8(ascii: "\n")))
      let cut = original[..<(middle + 3)]
      let lines = cut.reduce(into: 1) { count, byte in count += byte == UInt8(ascii: "\n") ? 1 : 0 }
      #expect(read("truncated.txt", Data(cut)) == .malformedLine(line: lines))
      // Not text at all.
      let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 0x80) })
      #expect(
        read("garbage.bin", garbage)
          == .unreadableFile(name: "garbage.bin", reason: "not UTF-8 text"))
      #expect(read("prose.txt", Data("Hello, lexicon!\n".utf8)) == .malformedLine(line: 1))
    }
  }
}
