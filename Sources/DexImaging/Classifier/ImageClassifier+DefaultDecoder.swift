#if canImport(CDexImageShim)
  import Foundation

  extension ImageDownscaler: PixelDecoding {
    /// The short side the classifier needs before its own centre crop and resample to 224.
    public static let classifierShortSide = 256

    /// Decodes JPEG or PNG bytes to upright RGB8 with a short side of at least
    /// ``classifierShortSide``, using DCT scaling so the classifier never pays for a full-size
    /// decode; this is what makes `ImageDownscaler` the classifier's default decoder.
    public func decodePixels(from data: Data) throws -> RGBImage {
      try decodePixels(
        from: data, target: .minimumShortSide(Self.classifierShortSide), options: DecodingOptions())
    }
  }

  extension ImageClassifier {
    /// The default on-device classifier: bundled EfficientNet-Lite0 weights, decoding JPEG and
    /// PNG through ``ImageDownscaler`` (orientation applied, no second JPEG encode).
    public init(configuration: Configuration = Configuration()) {
      self.init(decoder: ImageDownscaler(), configuration: configuration)
    }
  }
#endif
