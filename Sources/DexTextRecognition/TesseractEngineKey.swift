#if os(Linux) && Tesseract
  /// Which engines can serve a call: same data directory, same languages.
  struct TesseractEngineKey: Hashable, Sendable {
    let dataDirectory: String
    let languages: String
  }
#endif
