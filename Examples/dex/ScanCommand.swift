import ArgumentParser
import DexImaging
import DexKit
import DexTerminal
import DexTextRecognition
import Foundation

/// `dex scan`: identifies photos and saves them to the collection.
struct ScanCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan", abstract: "Identify photos and save them as Dex entries.")

  @OptionGroup var options: GlobalOptions

  @Argument(help: "JPEG, PNG, HEIC/HEIF, AVIF or WebP files to scan.")
  var images: [String] = []

  @Flag(help: "Scan the photo bundled with dex (a quick offline demo).")
  var sample = false

  @Flag(help: "Identify without saving.")
  var dryRun = false

  @Flag(help: "Skip the cloud even when a backend is configured.")
  var offline = false

  @Flag(help: "Print each entry as JSON instead of a card.")
  var json = false

  @Flag(
    help: """
      Also read the printed text in each photo on device (Tesseract: a plant tag, a card's \
      name) and keep it on the entry, found by `dex list --search`.
      """)
  var readText = false

  @Flag(
    help: """
      Decode in this process instead of in dex-decode-worker processes (also \
      DEX_DECODING=in-process). Isolated decoding keeps a decoder bug a hostile photo reaches \
      out of dex.
      """)
  var inProcessDecoding = false

  func validate() throws {
    if images.isEmpty && !sample {
      throw ValidationError("Name at least one image, or pass --sample.")
    }
  }

  func run() async throws {
    try await reportingErrors {
      let settings = try options.resolved()
      // Opt-in: the text pass runs beside the classifier and the cloud, and on a photo of a
      // plant tag it added ~0.03 s and ~21 MB to an offline scan, but it needs Tesseract's
      // language data at run time, which a plain scan does not.
      let scanner = DexScanner(
        classifier: ImageClassifier(configuration: .interactive),
        visionService: try settings.visionService(offline: offline),
        textRecognizer: readText ? TesseractTextRecognizer() : nil,
        downscaler: ImagingChoice.decoder(inProcess: inProcessDecoding))
      let store = dryRun ? nil : try settings.openStore()
      var paths = images.map { URL(fileURLWithPath: $0) }
      if sample {
        guard let url = Bundle.module.url(forResource: "sample", withExtension: "jpg") else {
          throw DexCLIError.notFound("The bundled sample photo is missing.")
        }
        paths.insert(url, at: 0)
      }
      var lastFailure: ExitCode?
      for path in paths {
        do {
          try await scan(path, with: scanner, store: store)
        } catch {
          lastFailure = fail(error)
        }
      }
      if let lastFailure { throw lastFailure }
    }
  }

  private func scan(_ url: URL, with scanner: DexScanner, store: DexStore?) async throws {
    let photo: Data
    do {
      photo = try LocalFile.read(
        url.path, maximumByteCount: DecodingLimits.default.maximumByteCount)
    } catch {
      throw DexCLIError.notFound(error.description)
    }
    let console = Console(enabled: !json)
    console.line("▶ \(TerminalText.safe(url.lastPathComponent))")
    var final = DexScanState()
    var namePrinted = false
    for await state in scanner.scan(photo) {
      final = state
      switch state.phase {
      case .capturing: console.line("  Capturing…")
      case .analyzing:
        if let guess = state.localGuess {
          let percent = TerminalText.percent(guess.confidence)
          // An unlikely category is worded as such ("Not sure — maybe a plant…").
          let headline =
            guess.isCategoryLikely
            ? "Looks like \(EntryCard.article(for: guess.category.title)) \(guess.category.title)"
            : guess.offlineName
          // The percentage is the category's; the fine label carries its own, so "73%" next
          // to "daisy" never reads as the daisy's probability.
          let label = guess.labelConfidence.map {
            "\(guess.label), \(Int(($0 * 100).rounded()))%"
          }
          console.line("  \(headline)… \(percent)% (on-device label: \(label ?? guess.label))")
        } else {
          console.line("  Analyzing…")
        }
      case .identifying:
        // The name on its own line as soon as the cloud's reply holds it; the card follows
        // when the scan ends.
        if !namePrinted, let name = state.partialResult?.commonName {
          console.line("  \(TerminalText.safe(name))")
          namePrinted = true
        }
      case .result, .failed: break
      }
    }
    guard final.phase == .result, let entry = final.makeEntry(), let image = final.imageData else {
      let reason = final.error?.localizedDescription ?? "The scan did not finish."
      if case .unreadableImage? = final.error {
        throw DexCLIError.unreadable("\(url.lastPathComponent): \(reason)")
      }
      throw DexCLIError.scanFailed("\(url.lastPathComponent): \(reason)")
    }
    if let error = final.textRecognitionError {
      console.line("  No text read: \(error.localizedDescription)")
    }
    if final.isOffline, final.cloudError != nil {
      console.line("  Identified offline — reconnect for full details")
    }
    var saved = entry
    if let store {
      // The thumbnail was made from the scan's one decode (DexScanner's default 256 px).
      saved = try await store.insert(entry, image: image, thumbnail: final.thumbnailData)
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      encoder.dateEncodingStrategy = .iso8601
      print(TerminalText.json(try encoder.encode(saved)))
    } else {
      print(EntryCard(entry: saved, isOffline: final.isOffline).render())
      if store != nil {
        // The store keeps one entry per photo: scanning the same bytes again returns that one.
        print(
          saved.id == entry.id
            ? "  Saved as \(saved.id)" : "  Already in your collection as \(saved.id)")
      }
    }
  }
}

/// Progress lines, silenced in JSON mode so standard output stays machine-readable.
struct Console {
  let enabled: Bool
  func line(_ text: String) {
    guard enabled else { return }
    print(text)
    // Progress is worth seeing when it happens, also through a pipe.
    fflush(nil)  // every output stream: `stdout` is a global var Swift 6 will not touch
  }
}
