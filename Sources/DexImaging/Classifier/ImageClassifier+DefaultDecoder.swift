import Logging

#if os(Linux) && SystemImageCodecs
  extension ImageClassifier {
    /// The default on-device classifier: bundled EfficientNet-Lite0 weights, decoding JPEG, PNG,
    /// HEIF/HEIC, AVIF and WebP bytes through ``ImageDownscaler`` (orientation applied, no
    /// second JPEG encode).
    ///
    /// Available where DexImaging's system-codec decoder is built (Linux with the package trait
    /// `SystemImageCodecs`); elsewhere
    /// pass a decoder of your own to ``init(decoder:configuration:logger:)``.
    ///
    /// - Parameters:
    ///   - configuration: the guess's tuning.
    ///   - logger: where the classifier and its decoder log; never receives pixels.
    public init(
      configuration: Configuration = Configuration(),
      logger: Logger = Logger(label: "dexkit.imaging.classifier")
    ) {
      self.init(
        decoder: ImageDownscaler(logger: logger), configuration: configuration, logger: logger)
    }
  }
#endif
