import AsyncHTTPClient
import DexImaging
import DexKitTesting
import DexProxyTesting
import Foundation
import Logging
import NIOCore
import PixScanCore
import Testing

/// PixScan's server on 127.0.0.1 (port 0), driven by a real HTTP client.
@Suite("PixScan over HTTP")
struct PixScanHTTPTests {
  struct Answer {
    var status: Int
    var contentType: String
    var body: Data
    var json: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
    var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
  }

  /// Starts a server over `folder`, runs `body` with a request function, stops the server.
  static func withServer(
    _ folder: TemporaryFolder, trash: String,
    _ body: (_ send: (String, String, String?) async throws -> Answer) async throws -> Void
  ) async throws {
    var quiet = Logger(label: "pixscan-test")
    quiet.logLevel = .critical
    let session = try await TriageSession(
      folder: folder.path, limits: PixScanLimits(maxRequestBodyByteCount: 1024),
      imaging: ImageDownscaler(), recognizer: UnavailableTextRecognizer(reason: "test"),
      trash: FreedesktopTrash(directory: trash), logger: quiet)
    let page = try PixScanPage.html()
    let (port, task) = try await LoopbackServer.start { onServerRunning in
      PixScanServer.application(
        session: session, page: page, port: 0, logger: quiet, onServerRunning: onServerRunning)
    }
    func send(_ method: String, _ path: String, _ json: String?) async throws -> Answer {
      var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
      request.method = .init(rawValue: method)
      if let json {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
      }
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
      let bytes = try await response.body.collect(upTo: 32 << 20)
      return Answer(
        status: Int(response.status.code),
        contentType: response.headers.first(name: "Content-Type") ?? "",
        body: Data(bytes.readableBytesView))
    }
    do {
      try await body(send)
    } catch {
      task.cancel()
      throw error
    }
    task.cancel()
    _ = try? await task.value
  }

  @Test func thePageTheStateAndASwipe() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog])
    try await Self.withServer(folder, trash: data.file("Trash")) { send in
      let page = try await send("GET", "/", nil)
      #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
      #expect(String(decoding: page.body, as: UTF8.self).contains("id=\"card\""))
      let state = try await send("GET", "/api/state?ahead=2", nil)
      let upcoming = state.json?["upcoming"] as? [[String: Any]]
      #expect(upcoming?.compactMap { $0["path"] as? String } == ["cat.jpg", "dog.jpg"])
      let thumb = try await send("GET", "/api/thumbnail?path=dog.jpg&size=card", nil)
      #expect(thumb.status == 200 && thumb.contentType == "image/jpeg")
      #expect(thumb.body.starts(with: [0xFF, 0xD8]))
      let decided = try await send(
        "POST", "/api/decide?ahead=1", #"{"path":"cat.jpg","action":"queue"}"#)
      #expect(decided.status == 200)
      let progress = decided.json?["progress"] as? [String: Any]
      #expect(progress?["queued"] as? Int == 1)
      #expect(
        (decided.json?["upcoming"] as? [[String: Any]])?.first?["path"] as? String == "dog.jpg")
      let queue = try await send("GET", "/api/queue?offset=0&limit=10", nil)
      let catBytes = try SamplePhoto.cat.data.count
      #expect(queue.json?["byteCount"] as? Int == catBytes)
      let emptied = try await send("POST", "/api/queue/empty", nil)
      #expect(emptied.json?["moved"] as? [String] == ["cat.jpg"])
      #expect(data.exists("Trash/files/cat.jpg") && !folder.exists("cat.jpg"))
      let export = try await send("GET", "/api/texts.txt", nil)
      #expect(export.status == 200 && export.contentType.hasPrefix("text/plain"))
    }
  }

  @Test func hostilePathsAreRefusedWithJSONErrors() async throws {
    let folder = try TemporaryFolder()
    let outside = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let secret = try outside.write(try SamplePhoto.dog.data, to: "secret.jpg")
    try FileManager.default.createSymbolicLink(
      atPath: folder.file("escape.jpg"), withDestinationPath: secret)
    try await Self.withServer(folder, trash: data.file("Trash")) { send in
      let dotdot = try await send("GET", "/api/thumbnail?path=..%2Foutside.jpg", nil)
      #expect(dotdot.status == 400 && dotdot.errorCode == "invalid_path")
      let absolute = try await send(
        "POST", "/api/decide", #"{"path":"\#(secret)","action":"keep"}"#)
      #expect(absolute.status == 400 && absolute.errorCode == "invalid_path")
      let link = try await send("GET", "/api/thumbnail?path=escape.jpg", nil)
      #expect(link.status == 404 || link.status == 403)
      #expect(link.errorCode == "not_found" || link.errorCode == "outside_folder")
      let state = try await send("GET", "/api/thumbnail?path=.pixscan%2Fpixscan.sqlite", nil)
      #expect(state.status == 400)
      #expect(FileManager.default.fileExists(atPath: secret))
    }
  }

  @Test func malformedAndOversizedRequestsAreRefused() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try await Self.withServer(folder, trash: data.file("Trash")) { send in
      let big = try await send(
        "POST", "/api/decide",
        #"{"path":"cat.jpg","action":"keep","pad":""# + String(repeating: "x", count: 4096) + "\"}")
      #expect(big.status == 413 && big.errorCode == "request_too_large")
      let bad = try await send("POST", "/api/decide", "{not json")
      #expect(bad.status == 400 && bad.errorCode == "bad_request")
      let action = try await send("POST", "/api/decide", #"{"path":"cat.jpg","action":"burn"}"#)
      #expect(action.status == 400)
      let paging = try await send("GET", "/api/photos?offset=0&limit=100000", nil)
      #expect(paging.status == 400 && paging.errorCode == "bad_request")
      let negative = try await send("GET", "/api/photos?offset=-1&limit=1", nil)
      #expect(negative.status == 400)
      let size = try await send("GET", "/api/thumbnail?path=cat.jpg&size=huge", nil)
      #expect(size.status == 400)
      let missing = try await send("GET", "/api/nothing", nil)
      #expect(missing.status == 404 && missing.errorCode == "not_found")
      let notPhoto = try await send("GET", "/api/thumbnail?path=none.jpg", nil)
      #expect(notPhoto.status == 404)
      // None of it was recorded.
      let state = try await send("GET", "/api/state", nil)
      #expect((state.json?["progress"] as? [String: Any])?["processed"] as? Int == 0)
    }
  }
}
