import DexModel
import Foundation
internal import GRDB

/// One row of the `entry` table: a ``/DexModel/DexEntry`` plus where its photo and thumbnail
/// live. The single mapping between the entry and its columns, by column name, shared by every
/// read and write of the store and by the backup.
///
/// Columns are read by name, so a migration that adds a column (with a default) leaves every
/// existing read working and old stores open; a new ``/DexModel/DexEntry`` field is one column
/// in a migration plus one line in each of ``init(row:)`` and ``encode(to:)``.
struct EntryRecord: FetchableRecord, PersistableRecord, Sendable {
  static let databaseTableName = "entry"

  /// The row's `INTEGER PRIMARY KEY`; `nil` before the row is inserted.
  var seq: Int64?
  var entry: DexEntry
  /// The photo's path relative to the store directory.
  var imagePath: String
  var imageSize: Int
  var imageSHA256: String
  var thumbnailPath: String?
  var thumbnailSHA256: String?
  /// When the row was first saved, in seconds since the reference date.
  var savedAt: Double

  init(
    entry: DexEntry, imagePath: String, imageSize: Int, imageSHA256: String,
    thumbnailPath: String?, thumbnailSHA256: String?, savedAt: Date = Date()
  ) {
    self.entry = entry
    self.imagePath = imagePath
    self.imageSize = imageSize
    self.imageSHA256 = imageSHA256
    self.thumbnailPath = thumbnailPath
    self.thumbnailSHA256 = thumbnailSHA256
    self.savedAt = savedAt.timeIntervalSinceReferenceDate
  }

  /// Reads a row by column name; a damaged value is ``DexStoreError/corruptDatabase(path:detail:)``.
  init(row: Row) throws {
    do {
      let id: String = try row.decode(forColumn: "id")
      let factsJSON: String = try row.decode(forColumn: "facts")
      guard let facts = try? JSONDecoder().decode([String].self, from: Data(factsJSON.utf8))
      else {
        throw DexStoreError.corruptDatabase(
          path: "entry \(id)", detail: "the facts column is not a JSON array of strings")
      }
      seq = try row.decode(forColumn: "seq")
      entry = DexEntry(
        id: id, commonName: try row.decode(forColumn: "commonName"),
        categoryRaw: try row.decode(forColumn: "categoryRaw"),
        scientificName: try row.decode(forColumn: "scientificName"),
        summary: try row.decode(forColumn: "summary"), facts: facts,
        rarity: try row.decode(forColumn: "rarity"),
        confidence: try row.decode(forColumn: "confidence"),
        localGuessLabel: try row.decode(forColumn: "localGuessLabel"),
        dateDiscovered: Date(
          timeIntervalSinceReferenceDate: try row.decode(forColumn: "discovered")),
        notes: try row.decode(forColumn: "notes"),
        recognizedText: try row.decode(forColumn: "recognizedText"))
      imagePath = try row.decode(forColumn: "imagePath")
      imageSize = try row.decode(forColumn: "imageSize")
      imageSHA256 = try row.decode(forColumn: "imageSHA256")
      thumbnailPath = try row.decode(forColumn: "thumbnailPath")
      thumbnailSHA256 = try row.decode(forColumn: "thumbnailSHA256")
      savedAt = try row.decode(forColumn: "savedAt")
    } catch let error as DexStoreError {
      throw error
    } catch {
      throw DexStoreError.corruptDatabase(path: "entry table", detail: "\(error)")
    }
  }

  /// Writes every column; `categoryKey` is the matched category the filters use.
  func encode(to container: inout PersistenceContainer) throws {
    container["seq"] = seq
    container["id"] = entry.id
    container["commonName"] = entry.commonName
    container["categoryRaw"] = entry.categoryRaw
    container["categoryKey"] = entry.category.rawValue
    container["scientificName"] = entry.scientificName
    container["summary"] = entry.summary
    container["facts"] = try Self.encodeFacts(entry.facts)
    container["rarity"] = entry.rarity
    container["confidence"] = entry.confidence
    container["localGuessLabel"] = entry.localGuessLabel
    container["discovered"] = entry.dateDiscovered.timeIntervalSinceReferenceDate
    container["notes"] = entry.notes
    container["recognizedText"] = entry.recognizedText
    container["imagePath"] = imagePath
    container["imageSize"] = imageSize
    container["imageSHA256"] = imageSHA256
    container["thumbnailPath"] = thumbnailPath
    container["thumbnailSHA256"] = thumbnailSHA256
    container["savedAt"] = savedAt
  }

  /// The `facts` column value: a JSON array of strings.
  static func encodeFacts(_ facts: [String]) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return String(decoding: try encoder.encode(facts), as: UTF8.self)
  }
}
