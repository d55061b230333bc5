import Foundation
import Logging

extension DexStore {
  /// How a ``DexStore`` is opened and behaves.
  public struct Configuration: Sendable {
    /// The store's own directory; nothing else should live in it.
    public var directory: URL
    /// What to do when a photo that is already stored is saved again.
    public var duplicatePolicy: DexDuplicatePolicy
    /// How long a write waits for another process holding the store's write lock before failing
    /// with ``DexStoreError/busy(path:)``.
    public var busyTimeout: TimeInterval
    /// The largest image or thumbnail accepted, in bytes; bigger ones are refused with
    /// ``DexStoreError/invalidImage(_:)`` instead of exhausting memory or disk.
    public var maximumImageBytes: Int
    /// Whether loading an image checks it against the hash recorded at save time, so silent
    /// damage surfaces as ``DexStoreError/imageCorrupted(id:)`` rather than a broken picture.
    public var verifiesImagesOnLoad: Bool
    /// Where the store logs recoveries and swept files.
    public var logger: Logger
    /// How often, in seconds, ``DexStore/observe(_:)`` checks whether another process (or
    /// another `DexStore` on the same directory) changed the collection, using SQLite's
    /// `PRAGMA data_version` on a connection of its own; writes through this instance are seen
    /// at once whatever this is. `nil` turns the check off. Default 1 second.
    public var externalChangeCheckInterval: TimeInterval?

    /// Creates a configuration; every parameter has a sensible default.
    public init(
      directory: URL = DexStore.defaultDirectory,
      duplicatePolicy: DexDuplicatePolicy = .returnExisting,
      busyTimeout: TimeInterval = 5,
      maximumImageBytes: Int = 64 << 20,
      verifiesImagesOnLoad: Bool = true,
      logger: Logger = Logger(label: "dexkit.storage"),
      externalChangeCheckInterval: TimeInterval? = 1
    ) {
      self.directory = directory
      self.duplicatePolicy = duplicatePolicy
      self.busyTimeout = busyTimeout
      self.maximumImageBytes = maximumImageBytes
      self.verifiesImagesOnLoad = verifiesImagesOnLoad
      self.logger = logger
      self.externalChangeCheckInterval = Self.usableInterval(externalChangeCheckInterval)
    }

    /// `interval` when it is a positive finite number of seconds (at least 10 ms), else `nil`.
    static func usableInterval(_ interval: TimeInterval?) -> TimeInterval? {
      interval.flatMap { $0.isFinite && $0 > 0 ? max($0, 0.01) : nil }
    }
  }

  /// `Dex.store` inside the platform's application-support directory, the reference app's
  /// location (on Linux, `$XDG_DATA_HOME` or `~/.local/share`).
  public static var defaultDirectory: URL {
    let base =
      FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
    return base.appendingPathComponent("Dex.store", isDirectory: true)
  }
}
