/// How libjpeg reconstructs full-resolution chroma from 4:2:0 / 4:2:2 JPEGs while decoding.
public enum ChromaUpsampling: Sendable, Hashable, CaseIterable, Codable {
  /// ``fast`` when a Lanczos reduction of at least ``DecodingOptions/reducingGap`` follows the
  /// decode (the resampler smooths chroma anyway: on the benchmark photos the PSNR is identical to
  /// 0.01 dB while decoding is 10-25 % faster), ``smooth`` otherwise (the default).
  case automatic
  /// libjpeg's "fancy" triangle-filter upsampling: the best quality at full size.
  case smooth
  /// libjpeg's merged/box upsampling: faster, slightly blockier chroma edges at full size.
  case fast
}
