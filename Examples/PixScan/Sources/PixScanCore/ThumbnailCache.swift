import Foundation

/// The downscaled JPEGs PixScan has made, kept in memory up to a byte budget (least recently
/// used out first), with concurrent requests for the same image sharing one decode.
///
/// It exists so that the page's prefetch of the next photos is worth something: the card's
/// request for a photo that was prefetched is answered from here without decoding again.
public actor ThumbnailCache {
  /// What identifies one cached image: the photo as it is now, and the size.
  public struct Key: Sendable, Hashable {
    /// The photo's path relative to the folder.
    public var path: String
    /// ``Photo/version`` of the photo.
    public var version: String
    /// The size.
    public var size: ThumbnailSize

    /// Creates a key.
    public init(path: String, version: String, size: ThumbnailSize) {
      self.path = path
      self.version = version
      self.size = size
    }
  }

  /// How many requests were answered from memory and how many made an image.
  public struct Statistics: Sendable, Hashable, Codable {
    /// Requests answered from the cache (or by joining a decode in flight).
    public var hits: Int
    /// Requests that made the image.
    public var misses: Int
  }

  let maximumByteCount: Int
  private var entries: [Key: Data] = [:]
  private var recency: [Key] = []
  private var byteCount = 0
  private var inFlight: [Key: Task<Data, any Error>] = [:]
  private var hits = 0
  private var misses = 0

  /// Decodes beyond the limit wait here, in order.
  let decodes: ConcurrencyLimiter

  /// Creates a cache that holds at most `maximumByteCount` bytes of images and runs at most
  /// `maximumConcurrentDecodes` of its `make` closures at once.
  public init(maximumByteCount: Int, maximumConcurrentDecodes: Int = 2) {
    self.maximumByteCount = max(0, maximumByteCount)
    self.decodes = ConcurrencyLimiter(width: maximumConcurrentDecodes)
  }

  /// The most decodes that ever ran at once.
  public var peakConcurrentDecodes: Int {
    decodes.peak
  }

  /// The image for `key`: from memory, from a decode already running, or made by `make`.
  ///
  /// - Throws: what `make` throws (``PixScanError``), or `CancellationError`.
  public func image(
    for key: Key, make: @escaping @Sendable () async throws(PixScanError) -> Data
  ) async throws -> Data {
    if let data = entries[key] {
      hits += 1
      touch(key)
      return data
    }
    if let task = inFlight[key] {
      hits += 1
      return try await task.value
    }
    misses += 1
    let decodes = self.decodes
    let task = Task<Data, any Error> { try await decodes.run(make) }
    inFlight[key] = task
    defer { inFlight[key] = nil }
    let data = try await task.value
    insert(data, for: key)
    return data
  }

  /// The hit and miss counts so far.
  public var statistics: Statistics { Statistics(hits: hits, misses: misses) }

  private func touch(_ key: Key) {
    if let index = recency.firstIndex(of: key) { recency.remove(at: index) }
    recency.append(key)
  }

  private func insert(_ data: Data, for key: Key) {
    guard data.count <= maximumByteCount, entries[key] == nil else { return }
    entries[key] = data
    recency.append(key)
    byteCount += data.count
    while byteCount > maximumByteCount, !recency.isEmpty {
      let oldest = recency.removeFirst()
      byteCount -= entries.removeValue(forKey: oldest)?.count ?? 0
    }
  }
}
