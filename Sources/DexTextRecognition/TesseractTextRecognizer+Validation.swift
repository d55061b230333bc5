#if os(Linux) && Tesseract
  import DexImaging

  extension TesseractTextRecognizer {
    /// Checks the options that do not depend on the installed data.
    static func validate(_ options: TextRecognitionOptions) throws(TextRecognitionError) {
      guard !options.languages.isEmpty else {
        throw .invalidOptions("the language list is empty")
      }
      for language in options.languages {
        let allowed = language.utf8.allSatisfy { byte in
          (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
            || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
        guard allowed, !language.isEmpty, language.utf8.count <= 64 else {
          throw .invalidOptions("“\(language)” is not a language code (letters, digits and _ only)")
        }
      }
      guard options.timeout >= .zero else { throw .invalidOptions("the timeout is negative") }
      guard options.maximumPixelCount > 0 else {
        throw .invalidOptions("maximumPixelCount is not positive")
      }
      guard options.minimumConfidence.isFinite else {
        throw .invalidOptions("minimumConfidence is not a number")
      }
    }
  }
#endif
