import DexModel
import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The bundled ImageNet → DexCategory table and the table parser.
@Suite(.offCooperativePool) struct ClassifierLabelTableTests {
  @Test func bundledTableCoversAllClassesInOrder() throws {
    let table = try ClassifierModel.bundled().labels
    #expect(table.entries.count == 1000)
    #expect(table.entries[0].identifier == "n01440764")
    #expect(table.entries[0].label == "tench")
    #expect(table.entries[999].identifier == "n15075141")
    #expect(Set(table.entries.map(\.identifier)).count == 1000)
  }

  @Test(arguments: [
    ("n01644373", "tree frog", DexCategory.animal),  // amphibian
    ("n01774750", "tarantula", .insect),  // arachnid
    ("n01784675", "centipede", .insect),
    ("n01910747", "jellyfish", .animal),
    ("n02317335", "starfish", .animal),
    ("n01983481", "American lobster", .animal),  // crustacean
    ("n01531178", "goldfinch", .bird),
    ("n01491361", "tiger shark", .fish),
    ("n01665541", "leatherback sea turtle", .reptile),
    ("n02123159", "tiger cat", .animal),
    ("n02206856", "bee", .insect),
    ("n07734744", "mushroom", .fungus),  // WordNet says vegetable
    ("n12985857", "coral fungus", .fungus),
    ("n11939491", "daisy", .plant),
    ("n07753592", "banana", .food),
    ("n07873807", "pizza", .food),
    ("n07920052", "espresso", .food),
    ("n07930864", "tea cup", .object),  // WordNet says punch (a drink)
    ("n09256479", "coral reef", .unknown),
    ("n09472597", "volcano", .unknown),
    ("n10565667", "scuba diver", .unknown),
    ("n03272010", "electric guitar", .object),
  ])
  func categories(identifier: String, label: String, category: DexCategory) throws {
    let table = try ClassifierModel.bundled().labels
    let entry = try #require(table.entries.first { $0.identifier == identifier })
    #expect(entry.label == label)
    #expect(entry.category == category)
  }

  @Test func everyCategoryButPokemonAndMineralIsUsed() throws {
    let used = Set(try ClassifierModel.bundled().labels.entries.map(\.category))
    #expect(used == Set(DexCategory.allCases).subtracting([.pokemon, .mineral]))
  }

  @Test func parsesCustomTableAndFallsBackToMatching() throws {
    let table = try ClassifierLabelTable(
      tsv:
        "# comment\n0\tx0\tbird\tsnowy_owl\towl, Bubo scandiacus\n1\tx1\t\tplant\n\n2\tx2\t\tsomething\n"
    )
    #expect(table.entries.count == 3)
    #expect(table.entries[0].category == .bird)
    #expect(table.entries[0].label == "snowy owl")
    #expect(table.entries[0].synonyms == ["owl", "Bubo scandiacus"])
    #expect(table.entries[1].category == DexCategory.matching(fromLabels: ["plant"]))
    #expect(table.entries[2].category == DexCategory.matching(fromLabels: ["something"]))
  }

  /// A matcher that counts the labels it is asked about.
  final class CountingMatcher: DexCategoryMatching, @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [String] = []
    func category(for string: String) -> DexCategory { category(forLabels: [string]) }
    func category(forLabels labels: [String]) -> DexCategory {
      lock.lock()
      asked.append(contentsOf: labels)
      lock.unlock()
      return DexKeywordMatcher.standard.category(forLabels: labels)
    }
    var labels: [String] {
      lock.lock()
      defer { lock.unlock() }
      return asked
    }
  }

  /// Every row of the bundled table names its category, so reading it never consults a matcher
  /// (nor reads the WordNet lexicon behind the standard one).
  @Test func theBundledTableNeverConsultsTheMatcher() throws {
    let url = try #require(ClassifierModel.bundledResource("ImageNetLabels", "tsv"))
    let matcher = CountingMatcher()
    let table = try ClassifierLabelTable(
      tsv: String(contentsOf: url, encoding: .utf8), matcher: matcher)
    #expect(table.entries.count == 1000)
    #expect(matcher.labels.isEmpty, "asked about \(matcher.labels.prefix(5))")
    #expect(table == (try ClassifierModel.bundled().labels))
    let kite = try #require(table.entries.first { $0.identifier == "n01608432" })
    #expect(kite.category == .bird, "the table's kite is the bird, whatever the matcher says")
    let custom = try ClassifierLabelTable(tsv: "0\tx0\t\tsidewinder\n", matcher: matcher)
    #expect(matcher.labels == ["sidewinder"] && custom.entries[0].category == .reptile)
  }

  @Test(arguments: [
    "", "# only a comment\n", "1\tx\tbird\tout of order\n", "0\tx\tdragon\tunknown category\n",
    "0\tx\tbird\n", "zero\tx\tbird\tlabel\n", "0\tx\tbird\t   \n",
  ])
  func rejectsMalformedTables(text: String) {
    #expect(throws: ClassifierError.self) { try ClassifierLabelTable(tsv: text) }
  }

  @Test func modelRejectsLabelCountMismatch() throws {
    let network = try ClassifierModel.bundled().network
    let table = try ClassifierLabelTable(tsv: "0\tx\tbird\towl\n")
    #expect(throws: ClassifierError.invalidLabels("1 labels for a network with 1000 outputs")) {
      try ClassifierModel(network: network, labels: table)
    }
  }
}
