import ArgumentParser
import DexImaging
import DexKit
import DexTerminal
import Foundation

/// `dex ask`: AI Vision from the terminal; describes a photo, or answers a question about it,
/// printing the answer as it streams from the configured backend.
struct AskCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ask",
    abstract: "Describe a photo, or answer a question about it, through the backend.",
    discussion: """
      Needs a backend (--backend/--bootstrap-key or DEX_CLOUD_BASE_URL/DEX_CLOUD_BOOTSTRAP_KEY). \
      The photo is downscaled and encoded once, as `dex scan` does; the answer is printed as it \
      arrives.
      """)

  @OptionGroup var options: GlobalOptions

  @Argument(help: "The photo: JPEG, PNG, HEIC/HEIF, AVIF or WebP.")
  var photo: String

  @Argument(
    help: "What to ask about it (\"What ingredients are in this dish?\"); none for a description.")
  var question: String?

  @Flag(
    help: """
      Decode in this process instead of in dex-decode-worker processes (also \
      DEX_DECODING=in-process).
      """)
  var inProcessDecoding = false

  func run() async throws {
    try await reportingErrors {
      let settings = try options.resolved()
      guard let service = try settings.visionService(offline: false) else {
        throw DexCLIError.usage(
          "dex ask needs a backend: set --backend and --bootstrap-key (or DEX_CLOUD_BASE_URL).")
      }
      let data: Data
      do {
        data = try LocalFile.read(photo, maximumByteCount: DecodingLimits.default.maximumByteCount)
      } catch {
        throw DexCLIError.notFound("\(error)")
      }
      let jpeg: Data
      do {
        // The reference app's upload: 1024 pixels on the longest side, JPEG quality 0.8.
        jpeg = try await ImagingChoice.decoder(inProcess: inProcessDecoding)
          .downscale(data, options: DownscaleOptions()).jpegData
      } catch {
        throw DexCLIError.unreadable("\(photo): \(error)")
      }
      let deadline = ContinuousClock.now + DexScanner.Configuration.defaultCloudTimeout
      var printed = false
      do {
        for try await piece in service.streamDescription(
          imageData: jpeg, question: question, deadline: deadline)
        {
          // The model's text is shown, never interpreted: no escape sequences reach the terminal.
          try Self.write(TerminalText.safe(piece, keepingNewlines: true))
          printed = true
        }
      } catch let failure as DexCLIError {
        throw failure  // standard output failed, not the model
      } catch {
        if printed { try? Self.write("\n") }
        throw DexCLIError.scanFailed("\(URL(fileURLWithPath: photo).lastPathComponent): \(error)")
      }
      try Self.write("\n")
    }
  }

  /// Writes `text` to standard output as it comes (no buffering: the answer shows while the
  /// model writes it). A standard output that cannot be written (closed) is an I/O error, exit
  /// 74, not a failed scan; a reader that went away ends `dex` with SIGPIPE, as for any tool.
  private static func write(_ text: String) throws(DexCLIError) {
    do {
      try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    } catch {
      throw DexCLIError.store(
        "cannot write the answer to standard output: \(error.localizedDescription)")
    }
  }
}
