import DexModel
import Foundation

/// One entry to save together with its photo bytes and an optional thumbnail.
///
/// ``/DexModel/DexEntry`` deliberately carries no image, so inserts pass the bytes beside it;
/// the store keeps them as files and hands them back only when asked.
public struct DexInsertion: Sendable {
  /// The entry's metadata. Its `id` must be a UUID string; it is stored (and returned) in its
  /// canonical uppercase form.
  public var entry: DexEntry
  /// The encoded full-size photo (JPEG, PNG, HEIC…); never empty.
  public var image: Data
  /// An optional pre-rendered thumbnail for grids.
  public var thumbnail: Data?

  /// Pairs an entry with its image bytes.
  public init(entry: DexEntry, image: Data, thumbnail: Data? = nil) {
    self.entry = entry
    self.image = image
    self.thumbnail = thumbnail
  }
}
