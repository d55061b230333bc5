import DexTestTraits
import Foundation
import Testing

@testable import DexModel

@Suite("Model values", .offCooperativePool)
struct DexModelValueTests {
  @Test func categoriesMatchTheReference() {
    #expect(
      DexCategory.allCases.map(\.rawValue) == [
        "plant", "animal", "fish", "bird", "insect", "reptile", "mineral", "fungus", "food",
        "pokemon", "object", "unknown",
      ])
    #expect(DexCategory.pokemon.title == "Pokémon")
    #expect(DexCategory.fish.symbolName == "fish.fill")
    #expect(
      Set(DexCategory.allCases.map(\.tint)).count == DexCategory.allCases.count, "distinct tints")
    #expect(Set(DexCategory.allCases.map(\.symbolName)).count == DexCategory.allCases.count)
    #expect(DexCategory.plant.tint.cssHex == "#34a853")
    #expect("\(DexCategory.bird)" == "Bird")
  }

  @Test func categoryCodableUsesRawValues() throws {
    let data = try JSONEncoder().encode([DexCategory.fungus])
    #expect(String(decoding: data, as: UTF8.self) == #"["fungus"]"#)
    #expect(try JSONDecoder().decode([DexCategory].self, from: data) == [.fungus])
  }

  @Test func colorComponents() {
    let color = DexColor(red: 255, green: 0, blue: 51)
    #expect(color.cssHex == "#ff0033")
    #expect(color.unitComponents.red == 1)
    #expect(color.unitComponents.blue == 0.2)
  }

  @Test func localGuessClampsConfidence() {
    #expect(LocalGuess(category: .plant, label: "fern", confidence: 1.7).confidence == 1)
    #expect(LocalGuess(category: .plant, label: "fern", confidence: -2).confidence == 0)
    #expect(LocalGuess(category: .plant, label: "fern", confidence: .nan).confidence == 0)
    #expect(LocalGuess(category: .plant, label: "fern", confidence: 0.4).confidence == 0.4)
  }

  @Test func offlineFallbackIsExactlyTheReferences() {
    let guess = LocalGuess(category: .animal, label: "tree frog", confidence: 0.62)
    let result = ScanResult.offlineFallback(for: guess)
    #expect(
      result
        == ScanResult(
          commonName: "Tree Frog", category: "animal", scientificName: "",
          summary:
            "Identified on-device while offline. Reconnect and scan again for the full Dex entry.",
          facts: [], rarity: "Common", confidence: 0.62))
    #expect(result.isOfflineFallback)
    #expect(result.dexCategory == .animal)
    #expect(!ScanResultParsingTests.monarch.isOfflineFallback)
  }

  @Test func rarityMatching() {
    #expect(DexRarity(matching: "LEGENDARY") == .legendary)
    #expect(DexRarity(matching: "not so common") == .common)
    #expect(DexRarity(matching: "uncommon") == .uncommon)
    #expect(DexRarity(matching: "ultra-rare") == .rare)
    #expect(DexRarity(matching: "mythic") == nil)
    #expect(DexRarity.common < DexRarity.legendary)
    #expect(DexRarity.allCases.sorted() == DexRarity.allCases)
  }

  @Test func entryFromScanNormalizesCategoryAndRarity() {
    let scan = ScanResult(
      commonName: "Bald Eagle", category: "Birds of prey",
      scientificName: "Haliaeetus leucocephalus",
      summary: "A national symbol.", facts: ["Builds huge nests"], rarity: "very rare",
      confidence: 0.9)
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let entry = DexEntry(
      scan: scan, localGuess: LocalGuess(category: .bird, label: "bald eagle", confidence: 0.8),
      id: "E1", discoveredAt: date)
    #expect(entry.id == "E1")
    #expect(entry.categoryRaw == "bird")
    #expect(entry.category == .bird)
    #expect(entry.rarity == "Rare")
    #expect(entry.localGuessLabel == "bald eagle")
    #expect(entry.dateDiscovered == date)
    #expect(entry.scanResult.commonName == "Bald Eagle")
    #expect(DexEntry(scan: scan, localGuess: nil).localGuessLabel == "")
    #expect(
      UUID(uuidString: DexEntry(scan: scan, localGuess: nil).id) != nil, "ids are UUID strings")
  }

  @Test func entryWithUnknownRawCategoryReadsAsUnknown() {
    let entry = DexEntry(commonName: "X", categoryRaw: "dragon")
    #expect(entry.category == .unknown)
  }

  @Test func entryCodableRoundTrip() throws {
    let entry = DexEntry(
      id: "A", commonName: "Fox", categoryRaw: "animal", facts: ["a"], confidence: 0.5,
      dateDiscovered: Date(timeIntervalSince1970: 1_700_000_000), notes: "seen at dusk")
    let data = try JSONEncoder().encode(entry)
    #expect(try JSONDecoder().decode(DexEntry.self, from: data) == entry)
  }

  @Test func entryDecodingToleratesMissingOptionalFields() throws {
    let old = Data(#"{"id": "OLD", "commonName": "Fox", "dateDiscovered": 0}"#.utf8)
    let entry = try JSONDecoder().decode(DexEntry.self, from: old)
    #expect(entry.notes == "")
    #expect(entry.category == .unknown)
    #expect(entry.rarity == "Common")
    #expect(entry.facts.isEmpty)
    let missingID = Data(#"{"commonName": "Fox", "dateDiscovered": 0}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(DexEntry.self, from: missingID) }
  }
}
