#if os(Linux) && Tesseract
  /// Which engines can serve a call: same data directory, same languages (and the same probe of
  /// their data).
  struct TesseractEngineKey: Hashable, Sendable {
    let dataDirectory: String
    let languages: String
    /// The `dex-traineddata-probe` that test-loads the data first (Linux), or `nil`.
    var probeExecutable: String? = nil
  }
#endif
