import DexImaging

/// The bounds PixScan keeps to whatever the folder or the browser sends: file and request sizes,
/// how many photos are listed and returned per page, how much memory thumbnails take.
///
/// It exists so that a folder of a million files, a 2 GB "photo" or a hostile request body
/// neither exhausts memory nor hangs the server; every limit has a test that crosses it.
public struct PixScanLimits: Sendable, Hashable {
  /// The most photos one folder lists (default 100 000); the rest are left out and the
  /// progress reports ``TriageProgress/isTruncated``.
  public var maximumPhotoCount: Int
  /// The deepest sub-folder level listed (default 8; the folder itself is level 0).
  public var maximumDepth: Int
  /// The most directory entries one listing reads, of every kind and in all folders together
  /// (default 1 000 000): a folder of ten million non-photos is not read whole into memory
  /// before the photo bound can apply; past it the listing stops and reports
  /// ``TriageProgress/isTruncated``.
  public var maximumEntryCount: Int
  /// The largest photo file read, in bytes (default 100 MiB, DexImaging's own default).
  public var maximumPhotoByteCount: Int
  /// The decoder's limits on pixels, sides and buffers (``DecodingLimits/default``).
  public var decoding: DecodingLimits
  /// The largest request body accepted, in bytes (default 16 KiB: requests carry paths only).
  public var maximumRequestBodyByteCount: Int
  /// The most items one page of a listing returns (default 500).
  public var maximumPageSize: Int
  /// The memory the thumbnail cache may hold, in bytes (default 64 MiB).
  public var thumbnailCacheByteCount: Int
  /// The longest relative path accepted in a request, in UTF-8 bytes (default 4096, PATH_MAX).
  public var maximumPathByteCount: Int
  /// The longest side of the image text recognition reads (default 2048).
  public var maximumRecognitionDimension: Int
  /// How many text recognitions run at once (default 2); more wait their turn in order.
  public var maximumConcurrentRecognitions: Int
  /// How many thumbnails are decoded at once (default 2); more wait their turn in order.
  public var maximumConcurrentDecodes: Int
  /// How long a connection may take to send a request's headers and body, and stay idle between
  /// requests (default 30 s): a client that stalls or trickles bytes is closed, rather than
  /// holding a connection and its buffers.
  public var readTimeout: Duration

  /// Creates limits; the defaults suit a phone's camera roll copied to disk.
  public init(
    maximumPhotoCount: Int = 100_000, maximumDepth: Int = 8, maximumPhotoByteCount: Int = 100 << 20,
    decoding: DecodingLimits = .default, maximumRequestBodyByteCount: Int = 16 << 10,
    maximumPageSize: Int = 500, thumbnailCacheByteCount: Int = 64 << 20,
    maximumPathByteCount: Int = 4096, maximumRecognitionDimension: Int = 2048,
    maximumConcurrentRecognitions: Int = 2, maximumConcurrentDecodes: Int = 2,
    readTimeout: Duration = .seconds(30), maximumEntryCount: Int = 1_000_000
  ) {
    self.readTimeout = max(readTimeout, .milliseconds(1))
    self.maximumConcurrentRecognitions = max(1, maximumConcurrentRecognitions)
    self.maximumConcurrentDecodes = max(1, maximumConcurrentDecodes)
    self.maximumPhotoCount = maximumPhotoCount
    self.maximumDepth = maximumDepth
    self.maximumEntryCount = maximumEntryCount
    self.maximumPhotoByteCount = maximumPhotoByteCount
    self.decoding = decoding
    self.maximumRequestBodyByteCount = maximumRequestBodyByteCount
    self.maximumPageSize = maximumPageSize
    self.thumbnailCacheByteCount = thumbnailCacheByteCount
    self.maximumPathByteCount = maximumPathByteCount
    self.maximumRecognitionDimension = maximumRecognitionDimension
  }
}
