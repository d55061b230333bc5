/// The encoded formats DexImaging decodes, identified from magic bytes (never from a file name).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
  /// JPEG / JFIF / EXIF: baseline or progressive, grey, YCbCr, RGB, CMYK or YCCK.
  case jpeg
  /// PNG: any bit depth and colour type, interlaced or not.
  case png
  /// HEIF with HEVC-coded images (HEIC, what iPhones save): the primary image of the file, 8 to
  /// 12 bits, with its rotation, mirroring and alpha, through libheif.
  case heif
  /// AVIF (HEIF with AV1-coded images): the primary image, 8 to 12 bits, through libheif.
  case avif
  /// WebP: lossy or lossless, with or without alpha; an animation's first frame (libwebp).
  case webp

  /// The conventional display name ("JPEG", "PNG", "HEIF", "AVIF", "WebP").
  public var name: String {
    switch self {
    case .jpeg: return "JPEG"
    case .png: return "PNG"
    case .heif: return "HEIF"
    case .avif: return "AVIF"
    case .webp: return "WebP"
    }
  }
}
