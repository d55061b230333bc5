#if os(Linux) && Tesseract
  import DexImaging
  import Foundation

  extension TesseractTextRecognizer {
    /// The languages whose data is installed in ``dataDirectory`` (`"eng"`, `"deu"`…, plus
    /// `"osd"` when orientation detection can run), sorted; empty when there is no data.
    ///
    /// It exists so that a host can offer only the languages it can read.
    public var availableLanguages: [String] {
      guard let dataDirectory else { return [] }
      return Self.languages(in: dataDirectory)
    }

    /// The places searched, in order, when no data directory is given: `TESSDATA_PREFIX` (itself
    /// and its `tessdata` folder), then Debian's and the usual Homebrew and `/usr/local` ones.
    static func candidateDataDirectories(environment: [String: String]) -> [String] {
      var candidates: [String] = []
      if let prefix = environment["TESSDATA_PREFIX"], !prefix.isEmpty {
        candidates += [prefix, (prefix as NSString).appendingPathComponent("tessdata")]
      }
      candidates += [
        "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
        "/usr/share/tessdata", "/usr/local/share/tessdata", "/opt/homebrew/share/tessdata",
      ]
      return candidates
    }

    /// `dex-traineddata-probe` beside this process's executable (Linux), or `nil`.
    static func defaultProbeExecutable() -> String? {
      #if os(Linux)
        IsolatedImageDecoder.besideMainExecutable(probeExecutableName)
      #else
        nil
      #endif
    }

    /// The first candidate directory that holds any `.traineddata`.
    static func defaultDataDirectory(
      environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
      candidateDataDirectories(environment: environment).first { !languages(in: $0).isEmpty }
    }

    static func languages(in directory: String) -> [String] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      return names.filter { $0.hasSuffix(".traineddata") }
        .map { String($0.dropLast(".traineddata".count)) }.sorted()
    }

    /// The engine key for `options`, after checking that the data for every language is there.
    func engineKey(
      for options: TextRecognitionOptions
    ) throws(TextRecognitionError)
      -> TesseractEngineKey
    {
      guard let dataDirectory else {
        throw .engineUnavailable(
          detail:
            "no Tesseract language data found (set TESSDATA_PREFIX or install tesseract-ocr-eng)")
      }
      let installed = Set(Self.languages(in: dataDirectory))
      guard !installed.isEmpty else {
        throw .engineUnavailable(detail: "no Tesseract language data in \(dataDirectory)")
      }
      for language in options.languages where !installed.contains(language) {
        throw .languageUnavailable(language)
      }
      if options.detectsOrientation, !installed.contains("osd") {
        throw .languageUnavailable("osd")
      }
      return TesseractEngineKey(
        dataDirectory: dataDirectory, languages: options.languages.joined(separator: "+"),
        probeExecutable: probeExecutable)
    }
  }
#endif
