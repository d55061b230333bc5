import DexTestTraits
import Testing

@testable import DexModel

@Suite("Keyword matcher", .offCooperativePool)
struct DexKeywordMatcherTests {
  @Test(
    "Single labels resolve to the expected category",
    arguments: [
      // The reference's own examples and traps.
      ("plant", DexCategory.plant), ("elephant", .animal), ("goldfish", .fish),
      ("houseplant", .plant), ("antelope", .animal), ("pants", .object), ("jellyfish", .animal),
      ("starfish", .animal), ("beer bottle", .object), ("Pokémon", .pokemon),
      ("POKEMON", .pokemon), ("tree_frog", .animal), ("Tree-Frog", .animal),
      // Apple Vision style identifiers.
      ("big_cat", .animal), ("citrus_fruit", .food), ("baked_goods", .food),
      ("crocodilian", .reptile), ("raptor", .bird), ("waterfowl", .bird), ("arachnid", .insect),
      ("conifer", .plant), ("palm_tree", .plant), ("teddy_bear", .object), ("rocks", .mineral),
      ("gemstone", .mineral), ("mushroom", .fungus), ("ladybug", .insect), ("snake", .reptile),
      ("amphibian", .animal), ("retriever", .animal), ("kitten", .animal), ("canine", .animal),
      ("succulent", .plant), ("blossom", .plant), ("cocktail", .food), ("noodles", .food),
      ("sushi", .food), ("jewelry", .object), ("bicycle", .object), ("figurine", .object),
      // ImageNet style labels with synonyms.
      ("tench, Tinca tinca", .fish), ("great white shark, white shark, man-eater", .fish),
      ("tree frog, tree-frog", .animal), ("bald eagle, American eagle", .bird),
      ("hen-of-the-woods, hen of the woods", .fungus), ("agaric", .fungus),
      ("yellow lady's slipper, yellow lady-slipper", .plant), ("daisy", .plant),
      ("Granny Smith", .food), ("airship, dirigible", .object),
      ("baseball player, ballplayer", .unknown), ("oscilloscope", .object), ("strawberry", .food),
      ("monarch, monarch butterfly", .insect),
      ("black widow, Latrodectus mactans", .insect), ("box turtle, box tortoise", .reptile),
      ("rock python, rock snake", .reptile), ("rock crab", .animal), ("hotdog, hot dog", .food),
      ("computer mouse", .object), ("golden retriever", .animal), ("sea lion", .animal),
      ("hummingbird", .bird), ("coral fungus", .fungus), ("spider monkey", .animal),
      ("spider crab", .animal), ("crab spider", .insect), ("butterfly fish", .fish),
      ("tuna sandwich", .food), ("mushroom soup", .food), ("fried chicken", .food),
      ("chicken", .bird), ("pineapple", .food), ("dandelion", .plant), ("buttercup", .plant),
      ("butterfly", .insect), ("catfish", .fish), ("seahorse", .fish), ("crayfish", .animal),
      ("cuttlefish", .animal), ("silverfish", .insect), ("fish and chips", .food),
      ("eggplant", .food), ("peacock", .bird), ("pearl", .mineral), ("fly agaric", .fungus),
      ("bouquet of flowers", .plant), ("cup of coffee", .food), ("bird of paradise", .plant),
      ("birdhouse", .object), ("Pikachu plush", .pokemon), ("Charizard card", .pokemon),
      ("pokemon trading card", .pokemon), ("stuffed animal", .object), ("wine glass", .object),
      ("tiger's eye", .mineral), ("marigold", .plant), ("cornflower", .plant),
      ("popcorn", .food), ("unicorn", .unknown), ("scarecrow", .object), ("crown", .object),
      ("street", .unknown), ("bearded dragon", .reptile), ("sky", .unknown),
      ("person", .unknown), ("food item", .food), ("item", .object), ("Jalapeño", .food),
      ("Crème brûlée", .food), ("BERRIES", .food), ("leaves", .plant), ("cacti", .plant),
      ("fungi", .fungus), ("Aves", .bird), ("Reptilia", .reptile), ("Insecta", .insect),
      ("Plantae", .plant), ("Mammalia", .animal), ("Arachnida", .insect),
      ("Actinopterygii", .fish), ("lichen", .fungus), ("fossil", .mineral),
      ("amethyst geode", .mineral), ("Venus flytrap", .plant), ("salamander", .animal),
      ("axolotl", .animal), ("scorpion", .insect), ("centipede", .insect),
      ("earthworm", .animal), ("octopus", .animal), ("sea urchin", .animal),
      ("rubber duck", .object), ("duck", .bird), ("horse fly", .insect), ("horse", .animal),
    ])
  func singleLabel(label: String, expected: DexCategory) {
    #expect(DexCategory.matching(fromLabels: [label]) == expected, "label: \(label)")
  }

  @Test(
    "Cloud category strings resolve",
    arguments: [
      ("Bird", DexCategory.bird), ("birds", .bird), ("Plant/Flower", .plant),
      ("Mineral (Gemstone)", .mineral), ("Pokémon card", .pokemon), ("Fungi", .fungus),
      ("Amphibian", .animal), ("Arachnid", .insect), ("Mammal", .animal),
      ("Crustacean", .animal), ("Mollusk", .animal), ("Tree", .plant), ("Vehicle", .object),
      ("Toy", .object), ("Beverage", .food), ("Dish", .food), ("  unknown ", .unknown),
      ("Unknown", .unknown), ("", .unknown), ("???", .unknown), ("Sea creature", .animal),
      ("Household item", .object), ("fish", .fish), ("Insect / Arachnid", .insect),
      ("REPTILE", .reptile), ("Pokemon", .pokemon), ("object", .object),
    ])
  func cloudCategory(string: String, expected: DexCategory) {
    #expect(DexCategory.matching(string) == expected, "string: \(string)")
  }

  @Test func exactRawValueAnywhereWins() {
    #expect(DexCategory.matching(fromLabels: ["tabby cat", "outdoor", "plant"]) == .plant)
    #expect(DexCategory.matching(fromLabels: ["structure", "Birds"]) == .bird)
  }

  @Test func higherRankedLabelsDecideFirst() {
    #expect(DexCategory.matching(fromLabels: ["outdoor", "sky", "oak", "dog"]) == .plant)
    #expect(DexCategory.matching(fromLabels: ["sky", "person", "dog", "oak"]) == .animal)
    #expect(DexCategory.matching(fromLabels: []) == .unknown)
    #expect(DexCategory.matching(fromLabels: ["sky", "outdoor", "adult"]) == .unknown)
  }

  @Test func shortNeedlesMatchWholeWordsOnly() {
    for label in ["elephant", "plant", "pants", "antelope", "giant"] {
      #expect(DexCategory.matching(fromLabels: [label]) != .insect, "\(label)")
    }
    #expect(DexCategory.matching(fromLabels: ["ant"]) == .insect)
    #expect(DexCategory.matching(fromLabels: ["fire ants"]) == .insect)
  }

  @Test func hostsCanAddAndOverrideKeywords() {
    var matcher = DexKeywordMatcher.standard
    matcher.lexicon = nil  // keywords alone: WordNet knows the olm (DexLexiconTests)
    #expect(matcher.category(forLabels: ["olm"]) == .unknown)
    matcher.addKeywords(["=olm", "axolotl"], for: .reptile)
    #expect(matcher.category(forLabels: ["olm"]) == .reptile)
    #expect(matcher.category(forLabels: ["axolotl"]) == .reptile, "host rules win ties")
    #expect(DexCategory.matching("axolotl", using: matcher) == .reptile)
    // The standard matcher is unchanged.
    #expect(DexKeywordMatcher.standard.category(forLabels: ["axolotl"]) == .animal)
    matcher.removeKeyword("axolotl")  // from every rule, the built-in one included
    #expect(matcher.category(forLabels: ["axolotl"]) == .unknown)
    #expect(matcher.category(forLabels: ["olm"]) == .reptile)
  }

  @Test func singularizer() {
    #expect(LabelText.singular("berries") == "berry")
    #expect(LabelText.singular("leaves") == "leaf")
    #expect(LabelText.singular("boxes") == "box")
    #expect(LabelText.singular("peaches") == "peach")
    #expect(LabelText.singular("cactus") == "cactus")
    #expect(LabelText.singular("moss") == "moss")
    #expect(LabelText.singular("iris") == "iris")
    #expect(LabelText.singular("gas") == "gas")
    #expect(LabelText.singular("tomatoes") == "tomato")
  }

  @Test func labelsAreFoldedAndSplit() {
    let text = LabelText("Pokémon_Card, (Lady's-Slipper)")
    #expect(text.segments.map { $0.map(\.raw) } == [["pokemon", "card"], ["ladys", "slipper"]])
  }

  @Test func vocabularyHasNoConflictingDuplicates() {
    var owner: [String: DexCategory] = [:]
    var conflicts: [String] = []
    for (category, keywords) in DexKeywordMatcher.standardGroups {
      for keyword in keywords {
        let key = keyword.trimmingPrefix("=").trimmingPrefix("~").lowercased()
        if let existing = owner[String(key)], existing != category {
          conflicts.append("\(key): \(existing) vs \(category)")
        }
        owner[String(key)] = category
      }
    }
    #expect(conflicts.isEmpty, "\(conflicts)")
  }

  @Test func vocabularyListsEachKeywordOncePerCategory() {
    for (category, keywords) in DexKeywordMatcher.standardGroups {
      var seen = Set<String>()
      let repeated = keywords.filter { !seen.insert($0).inserted }
      #expect(repeated.isEmpty, "\(category) repeats \(repeated)")
    }
  }

  @Test func keywordListsSplitAtCommasAndFoldWhiteSpace() {
    let list = DexKeywordMatcher.keywordList("fish, =cod,\n  sea\n  bass , ~item,\n")
    #expect(list == ["fish", "=cod", "sea bass", "~item"])
  }

  @Test func everyCategoryButUnknownHasKeywords() {
    let covered = Set(DexKeywordMatcher.standardGroups.map(\.0))
    #expect(covered == Set(DexCategory.allCases), "unknown holds the people-and-scenery words")
  }

  @Test func aHostMatcherChangesOnlyWhatItIsPassedTo() {
    let custom = DexKeywordMatcher.standard.addingKeywords(["=zzdexprobe"], for: .mineral)
    let result = ScanResult(commonName: "Probe", category: "zzdexprobe", summary: "A test word.")
    #expect(result.dexCategory(using: custom) == .mineral)
    #expect(DexCategory.matching("zzdexprobe", using: custom) == .mineral)
    // Nothing global changed: the default matching still does not know the word.
    #expect(result.dexCategory == .unknown)
    #expect(DexCategory.matching("zzdexprobe") == .unknown)
    let entry = DexEntry(scan: result, localGuess: nil, id: "E", matcher: custom)
    #expect(entry.category == .mineral)
    #expect(DexEntry(scan: result, localGuess: nil, id: "E").category == .unknown)
  }
}
