import DexTestTraits
import Testing

@testable import DexModel

@Suite("WordNet lexicon", .offCooperativePool)
struct DexLexiconTests {
  @Test func theBundledLexiconLoads() {
    #expect(DexLexicon.wordNet.count > 50_000, "\(DexLexicon.wordNet.count) entries")
    #expect(DexKeywordMatcher.standard.lexicon?.count == DexLexicon.wordNet.count)
  }

  @Test(
    "Tricky labels resolve through the lexicon",
    arguments: [
      // Breeds, as identifiers and as names.
      ("bernese_mountain", DexCategory.animal), ("australian_shepherd", .animal),
      ("Dandie Dinmont", .animal), ("Newfoundland", .animal), ("bedlington_terrier", .animal),
      ("Rhodesian ridgeback", .animal),
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
}
