#if canImport(CDexImageShim)
  extension ImageClassifier {
    /// The default on-device classifier: bundled EfficientNet-Lite0 weights, decoding JPEG and
    /// PNG bytes through ``ImageDownscaler`` (orientation applied, no second JPEG encode).
    ///
    /// Available where DexImaging's libjpeg-turbo/libpng decoder is built (Linux); elsewhere
    /// pass a decoder of your own to ``init(decoder:configuration:)``.
    public init(configuration: Configuration = Configuration()) {
      self.init(decoder: ImageDownscaler(), configuration: configuration)
    }
  }
#endif
