import DexModel
import Foundation

/// The `manifest.json` at the start of a DexKit backup archive.
///
/// The archive is a ustar file: `manifest.json` first, then `images/<ID>.image` and
/// `images/<ID>.thumbnail` members. The manifest carries every entry with the names and SHA-256
/// of its image members, so an import can verify each photo before storing it. Dates are encoded
/// the Foundation default way (seconds since 2001-01-01T00:00:00Z) so they round-trip exactly.
public struct DexArchiveManifest: Codable, Sendable, Equatable {
  /// The format identifier, always ``formatName``.
  public static let formatName = "dexkit-collection"
  /// The archive format version this DexKit writes and the newest it reads.
  public static let currentSchemaVersion = 1

  /// One archived entry and its image members.
  public struct Item: Codable, Sendable, Equatable {
    /// The entry's metadata.
    public var entry: DexEntry
    /// The member name of the full-size image.
    public var image: String
    /// The lowercase hex SHA-256 of the image bytes.
    public var imageSHA256: String
    /// The member name of the thumbnail, if the entry has one.
    public var thumbnail: String?
    /// The lowercase hex SHA-256 of the thumbnail bytes.
    public var thumbnailSHA256: String?
  }

  /// Always ``formatName``; lets an import reject unrelated tar files clearly.
  public var format: String
  /// The archive format version; an import refuses versions newer than it knows.
  public var schemaVersion: Int
  /// When the archive was written.
  public var exportedAt: Date
  /// Every entry, newest first.
  public var items: [Item]
}

/// What ``DexStore/importArchive(from:)`` did: how many entries were added and how many were
/// skipped because their id was already stored, so a restore can tell the user what changed.
public struct DexImportReport: Sendable, Equatable {
  /// Entries added to the store.
  public var inserted = 0
  /// Entries skipped because an entry with the same id was already stored.
  public var skipped = 0
  /// Entries left out because they name nothing (an empty name, or a placeholder such as
  /// "Unknown" without a summary), which the store never saves.
  public var refused = 0
}
