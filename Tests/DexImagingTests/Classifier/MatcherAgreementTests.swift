import DexModel
import Testing

@testable import DexImaging

/// The keyword matcher (DexModel) and the WordNet-derived ImageNet table (this module) are two
/// independent routes from a label to a category; on the 1000 ImageNet labels they must agree
/// almost everywhere. A drop here means a vocabulary regression.
@Test func keywordMatcherAgreesWithTheImageNetTable() throws {
  let url = try #require(ClassifierModel.bundledResource("ImageNetLabels", "tsv"))
  let table = try ClassifierLabelTable(contentsOf: url)
  #expect(table.entries.count == 1000)
  var disagreements: [String] = []
  for entry in table.entries {
    let labels = ([entry.label] + entry.synonyms).joined(separator: ", ")
    let matched = DexCategory.matching(fromLabels: [labels])
    if matched != entry.category {
      disagreements.append("\(entry.label): table \(entry.category), matcher \(matched)")
    }
  }
  #expect(disagreements.count <= 30, "\(disagreements.count) disagreements: \(disagreements)")
}
