/// Chroma subsampling of the JPEG that DexImaging writes.
public enum ChromaSubsampling: Sendable, Hashable, CaseIterable, Codable {
  /// 4:2:0, half chroma resolution both ways: the smallest files and what cameras write (default).
  case yuv420
  /// 4:2:2, half chroma resolution horizontally.
  case yuv422
  /// 4:4:4, full chroma resolution: larger files, crisper coloured edges.
  case yuv444
}
