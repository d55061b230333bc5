import Logging

#if os(Linux) && SystemImageCodecs
  extension ImageClassifier {
    /// The default on-device classifier: bundled EfficientNet-Lite0 weights, decoding JPEG and
    /// PNG bytes through ``ImageDownscaler`` (orientation applied, no second JPEG encode).
    ///
    /// Available where DexImaging's libjpeg-turbo/libpng decoder is built (Linux); elsewhere
    /// pass a decoder of your own to ``init(decoder:configuration:logger:)``.
    ///
    /// - Parameters:
    ///   - configuration: the guess's tuning.
    ///   - logger: where the classifier and its decoder log; never receives pixels.
    public init(
      configuration: Configuration = Configuration(),
      logger: Logger = Logger(label: "DexImaging.ImageClassifier")
    ) {
      self.init(
        decoder: ImageDownscaler(logger: logger), configuration: configuration, logger: logger)
    }
  }
#endif
