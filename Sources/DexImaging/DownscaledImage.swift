import Foundation

/// The result of ``ImageDownscaling/downscale(_:options:)``: the JPEG plus what happened on the
/// way, and the decoded pixels themselves so that later passes never decode the photo again.
public struct DownscaledImage: Sendable, Hashable {
  /// The upright, downscaled JPEG (baseline unless progressive was asked for; no EXIF, no
  /// orientation tag, no ICC profile).
  public var jpegData: Data
  /// The upright pixels ``jpegData`` was encoded from, at ``pixelWidth`` × ``pixelHeight``:
  /// what the on-device classifier reads (``ImageClassifying/classify(_:)``), with no JPEG
  /// round trip. `nil` from conformances that do not expose their pixels.
  public var pixels: RGBImage?
  /// A smaller JPEG for grids, resampled from the same decode when
  /// ``DownscaleOptions/maximumThumbnailDimension`` asks for one; `nil` otherwise.
  public var thumbnailJPEG: Data?
  /// Width of the output in pixels.
  public var pixelWidth: Int
  /// Height of the output in pixels.
  public var pixelHeight: Int
  /// Format the input was decoded as.
  public var sourceFormat: ImageFormat
  /// Width of the input as stored (before orientation was applied).
  public var sourcePixelWidth: Int
  /// Height of the input as stored (before orientation was applied).
  public var sourcePixelHeight: Int
  /// The EXIF orientation that was found and applied (``ImageOrientation/up`` when none).
  public var appliedOrientation: ImageOrientation
  /// `true` when the input was truncated and ``DecodingOptions/allowsPartialImages`` let it through.
  public var isPartial: Bool
  /// The date the photo's EXIF states (DateTimeOriginal, else DateTime), so that an app can
  /// show when it was taken; `nil` when there is none or it is malformed. DexImaging reads it
  /// from every format it decodes: JPEG (APP1), PNG (eXIf), WebP (EXIF chunk), and HEIF / HEIC /
  /// AVIF (the primary image's `Exif` item, at most 8 MiB).
  public var exifDate: EXIFDate?

  /// Creates a result; conformances outside DexImaging (for example an ImageIO one) use this.
  public init(
    jpegData: Data, pixelWidth: Int, pixelHeight: Int, sourceFormat: ImageFormat,
    sourcePixelWidth: Int, sourcePixelHeight: Int, appliedOrientation: ImageOrientation,
    isPartial: Bool = false, pixels: RGBImage? = nil, thumbnailJPEG: Data? = nil,
    exifDate: EXIFDate? = nil
  ) {
    self.exifDate = exifDate
    self.jpegData = jpegData
    self.pixels = pixels
    self.thumbnailJPEG = thumbnailJPEG
    self.pixelWidth = pixelWidth
    self.pixelHeight = pixelHeight
    self.sourceFormat = sourceFormat
    self.sourcePixelWidth = sourcePixelWidth
    self.sourcePixelHeight = sourcePixelHeight
    self.appliedOrientation = appliedOrientation
    self.isPartial = isPartial
  }
}
