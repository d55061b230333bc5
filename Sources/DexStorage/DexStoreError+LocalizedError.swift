import Foundation

extension DexStoreError: LocalizedError {
  /// The same sentence as ``description``, so `localizedDescription` says what went wrong.
  public var errorDescription: String? { description }

  /// What the person (or the app on their behalf) can do next, where there is something.
  public var recoverySuggestion: String? {
    switch self {
    case .corruptDatabase:
      "Restore the collection from a backup archive, or move the damaged store aside and start "
        + "a new one."
    case .unwritableDirectory:
      "Check that the store's folder exists and that the app may write to it."
    case .diskFull: "Free some storage space, then save again."
    case .busy: "Close the other app or process using this collection, then try again."
    case .notFound: "Reload the list: the entry may have been deleted meanwhile."
    case .duplicateID: "Save the entry under a new id."
    case .duplicateImage(let existingID): "Open the existing entry \(existingID) instead."
    case .invalidEntry: "Correct the entry's values and save again."
    case .invalidImage: "Save a non-empty photo within the store's size limit."
    case .imageMissing, .imageCorrupted:
      "Run the store's integrity check and restore the photo from a backup archive."
    case .invalidArchive: "Export the archive again from the original collection."
    case .unsupportedArchiveVersion, .unsupportedSchema: "Update the app to a newer version."
    case .io: nil
    case .closed: "Open the store again."
    }
  }
}
