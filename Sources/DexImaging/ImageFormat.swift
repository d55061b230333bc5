/// The encoded formats DexImaging decodes, identified from magic bytes (never from a file name).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
  /// JPEG / JFIF / EXIF: baseline or progressive, grey, YCbCr, RGB, CMYK or YCCK.
  case jpeg
  /// PNG: any bit depth and colour type, interlaced or not.
  case png

  /// The conventional display name ("JPEG", "PNG").
  public var name: String {
    switch self {
    case .jpeg: return "JPEG"
    case .png: return "PNG"
    }
  }
}
