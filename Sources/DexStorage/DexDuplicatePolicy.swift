/// What ``DexStore`` does when a photo whose bytes are already stored is saved again.

///
/// The store keeps a SHA-256 of every photo, so a double tap on "Save" or a re-imported picture
/// is detected regardless of the entry's id.
public enum DexDuplicatePolicy: String, Sendable, Codable, CaseIterable {
  /// Refuse the insert with ``DexStoreError/duplicateImage(existingID:)``.
  case reject
  /// Store the new entry anyway, with its own copy of the photo.
  case keepBoth
  /// Store nothing and return the entry that already has this photo.
  case returnExisting
}
