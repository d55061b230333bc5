import DexModel
import DexStorage
import Foundation

/// DexKit's `DexStore`, used exactly as an app would.
final class OursSide: BenchSide {
  let store: DexStore

  init(directory: URL) async throws {
    store = try DexStore(configuration: .init(directory: directory, duplicatePolicy: .keepBoth))
  }

  func insertOne(_ entry: DexEntry, image: Data) async throws {
    try await store.insert(entry, image: image)
  }

  func insertBatch(_ entries: [DexEntry], imageBytes: Int) async throws {
    _ = try await store.insert(
      contentsOf: entries.map { DexInsertion(entry: $0, image: randomBytes(imageBytes)) })
  }

  func firstPage(category: DexCategory?, text: String?, limit: Int) async throws -> [DexEntry] {
    try await store.page(DexQuery(category: category, text: text, limit: limit), after: nil).entries
  }

  func close() async throws { try store.close() }
}
