#if os(Linux) && Tesseract
  import DexImaging

  /// Why a recognition on a ``TesseractEngine`` did not produce lines.
  enum TesseractFailure: Error {
    case cancelled
    case timedOut
    case failed(String)
    /// The engine could not be had (missing or corrupt data, out of memory).
    case refused(TextRecognitionError)
  }
#endif
