// pixscan: swipe triage of a photo folder in the browser. The composition root: it builds the
// real decoder, text recognizer and trash, opens the session and serves the page on 127.0.0.1.
import ArgumentParser
import DexImaging
import DexTerminal
import DexTextRecognition
import Foundation
import HTTPSupport
import Hummingbird
import Logging
import PixScanCore

@main
struct PixScan: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pixscan",
    abstract: "Triage a folder of photos in the browser: keep, queue for the trash, read text.",
    discussion: """
      Serves a page on http://127.0.0.1:PORT/#token=TOKEN (open that exact URL: the \
      random token keeps other sites out). Left deletes (into the delete queue), right \
      keeps, up and down recognise text. Emptying the queue moves photos to the freedesktop \
      trash ($XDG_DATA_HOME/Trash). Progress is kept in FOLDER/.pixscan/pixscan.sqlite.
      """)

  @Argument(help: "The folder of photos to triage.")
  var folder: String

  @Option(help: "The port to listen on (0 picks a free one).")
  var port: Int = 8765

  @Flag(help: "Log every request and decode.")
  var verbose = false

  @Flag(
    help: """
      Decode in this process instead of in dex-decode-worker processes (also \
      DEX_DECODING=in-process).
      """)
  var inProcessDecoding = false

  func validate() throws {
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be within 0...65535")
    }
  }

  func run() async throws {
    // File names reach the log: none of their control characters reaches the terminal.
    LoggingSystem.bootstrap {
      TerminalLogHandler(wrapping: StreamLogHandler.standardError(label: $0))
    }
    var logger = Logger(label: "dexkit.pixscan")
    logger.logLevel = verbose ? .debug : .info
    let session = try await TriageSession(
      folder: folder, imaging: ImagingChoice.decoder(inProcess: inProcessDecoding),
      recognizer: Self.textRecognizer(logger: logger),
      trash: try FreedesktopTrash.home(), logger: logger)
    let token = AccessToken()
    let app = PixScanServer.application(
      session: session, page: try PixScanPage.html(), port: port, token: token, logger: logger
    ) { port in
      // The one place the token appears: the URL the user opens. Scripts read it from this
      // line, written unbuffered.
      let url = "http://\(PixScanServer.host):\(port)/#token=\(token.value)"
      try? FileHandle.standardOutput.write(contentsOf: Data("PixScan: \(url)\n".utf8))
    }
    try await ServerSetup.run(app)
  }

  /// The text recognizer for the up and down swipes: Tesseract 5 through DexTextRecognition.
  /// Without language data it is ``UnavailableTextRecognizer``, which says so on the page.
  static func textRecognizer(logger: Logger) -> any TextRecognizing {
    let tesseract = TesseractTextRecognizer(logger: logger)
    guard tesseract.dataDirectory != nil else {
      logger.warning("No Tesseract language data: text recognition is off")
      return UnavailableTextRecognizer(
        reason: "no Tesseract language data is installed (on Debian: tesseract-ocr-eng)")
    }
    return tesseract
  }
}
