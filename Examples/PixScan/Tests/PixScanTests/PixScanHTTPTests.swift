import AsyncHTTPClient
import CoreMetrics
import DexExamplesTestSupport
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
    var setCookie: String = ""
    /// What the page allows: its `Content-Security-Policy` and `X-Frame-Options`.
    var framing: String = ""
    var body: Data
    var json: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
    var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
  }

  static let token = AccessToken(value: "0123456789abcdef0123456789abcdef")

  /// Sends one request with exactly `headers` (nothing added) to the server on `port`.
  static func raw(
    port: Int, _ method: String, _ path: String, headers: [(String, String)], body: String? = nil
  ) async throws -> Answer {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    request.method = .init(rawValue: method)
    for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    // Far beyond any answer's normal time: it must outlast a decode worker's 30 s deadline
    // (PixScanDyingWorkerTests waits one out) on a loaded machine.
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
    let bytes = try await response.body.collect(upTo: 32 << 20)
    return Answer(
      status: Int(response.status.code),
      contentType: response.headers.first(name: "Content-Type") ?? "",
      setCookie: response.headers.first(name: "Set-Cookie") ?? "",
      framing: [
        response.headers.first(name: "Content-Security-Policy") ?? "",
        response.headers.first(name: "X-Frame-Options") ?? "",
        response.headers.first(name: "X-Content-Type-Options") ?? "",
      ].joined(separator: " | "),
      body: Data(bytes.readableBytesView))
  }

  /// Starts a server over `folder`, runs `body` with a request function (which sends the
  /// token), stops the server.
  static func withServer(
    _ folder: TemporaryFolder, trash: String,
    _ body: (_ send: (String, String, String?) async throws -> Answer) async throws -> Void
  ) async throws {
    try await withServerAndPort(folder, trash: trash) { send, _ in try await body(send) }
  }

  /// Starts a server over `folder`, runs `body` with a request function and the port.
  static func withServerAndPort(
    _ folder: TemporaryFolder, trash: String,
    limits: PixScanLimits = PixScanLimits(maximumRequestBodyByteCount: 1024),
    logger: Logger? = nil, metrics: (any MetricsFactory)? = nil,
    imaging: any ImageDownscaling & ImageDecoding = ImageDownscaler(),
    recognizer: any TextRecognizing = UnavailableTextRecognizer(reason: "test"),
    _ body: (_ send: @escaping (String, String, String?) async throws -> Answer, _ port: Int)
      async throws -> Void
  ) async throws {
    var quiet = Logger(label: "pixscan-test")
    quiet.logLevel = .critical
    let serverLogger = logger ?? quiet
    let session = try await TriageSession(
      folder: folder.path, limits: limits,
      imaging: imaging, recognizer: recognizer,
      trash: FreedesktopTrash(directory: trash), logger: quiet)
    let page = try PixScanPage.html()
    let server = try await LoopbackServer.start { onServerRunning in
      PixScanServer.application(
        session: session, page: page, port: 0, token: token, logger: serverLogger,
        metrics: metrics ?? MetricsSystem.factory, onServerRunning: onServerRunning)
    }
    let port = server.port
    func send(_ method: String, _ path: String, _ json: String?) async throws -> Answer {
      var headers = [("Host", "127.0.0.1:\(port)"), ("X-PixScan-Token", token.value)]
      if json != nil { headers.append(("Content-Type", "application/json")) }
      return try await raw(port: port, method, path, headers: headers, body: json)
    }
    do {
      try await body(send, port)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  @Test func thePageTheStateAndASwipe() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat, .dog])
    try await Self.withServer(folder, trash: data.file("Trash")) { send in
      let page = try await send("GET", "/", nil)
      #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
      // Never framed by another site, its type never guessed.
      #expect(page.framing == "frame-ancestors 'none' | DENY | nosniff")
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

  /// The token, Host, Origin and Content-Type rules: each refusal is checked against the same
  /// request with the rule satisfied, and the queue is never emptied by a refused request.
  @Test func requestsFromOtherSitesAreRefused() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try await Self.withServerAndPort(folder, trash: data.file("Trash")) { send, port in
      _ = try await send("POST", "/api/decide", #"{"path":"cat.jpg","action":"queue"}"#)
      let host = ("Host", "127.0.0.1:\(port)")
      let token = ("X-PixScan-Token", Self.token.value)
      func empty(_ headers: [(String, String)]) async throws -> Answer {
        try await Self.raw(port: port, "POST", "/api/queue/empty", headers: headers)
      }
      // No token, a wrong token (same length), the token in the query: refused.
      #expect(try await empty([host]).errorCode == "forbidden")
      let wrong = ("X-PixScan-Token", String(Self.token.value.reversed()))
      #expect(try await empty([host, wrong]).status == 403)
      let query = try await Self.raw(
        port: port, "POST", "/api/queue/empty?token=\(Self.token.value)", headers: [host])
      #expect(query.status == 403)
      // A rebound name, another port: refused even with the token.
      #expect(try await empty([("Host", "evil.example:\(port)"), token]).status == 403)
      #expect(try await empty([("Host", "127.0.0.1:\(port + 1)"), token]).status == 403)
      #expect(
        try await Self.raw(port: port, "GET", "/", headers: [("Host", "evil.example")]).status
          == 403)
      // Another site's Origin: refused even with the token.
      #expect(try await empty([host, token, ("Origin", "http://evil.example")]).status == 403)
      // A body that is not JSON: refused.
      let form = try await Self.raw(
        port: port, "POST", "/api/decide",
        headers: [host, token, ("Content-Type", "text/plain")],
        body: #"{"path":"cat.jpg","action":"keep"}"#)
      #expect(form.status == 415 && form.errorCode == "unsupported_media_type")
      // No cookie carries the token (cookies ignore ports: every server on 127.0.0.1 would
      // receive it): thumbnails and the export need the header like everything else, and
      // nothing sets a cookie.
      let cookie = ("Cookie", "pixscan-token-\(port)=\(Self.token.value)")
      #expect(try await empty([host, cookie]).status == 403)
      for path in ["/api/thumbnail?path=cat.jpg&size=small", "/api/texts.txt"] {
        #expect(try await Self.raw(port: port, "GET", path, headers: [host, cookie]).status == 403)
        let answer = try await Self.raw(port: port, "GET", path, headers: [host, token])
        #expect(answer.status == 200 && answer.setCookie.isEmpty, "\(path)")
      }
      #expect(
        try await Self.raw(port: port, "POST", "/api/session", headers: [host, token]).status == 404
      )
      #expect(folder.exists("cat.jpg"))
      // The same request with every rule met goes through; localhost and the own Origin too.
      let ok = try await empty([
        ("Host", "localhost:\(port)"), token, ("Origin", "http://127.0.0.1:\(port)"),
      ])
      #expect(ok.status == 200 && ok.json?["moved"] as? [String] == ["cat.jpg"])
      #expect(!folder.exists("cat.jpg"))
    }
  }

  /// A client that stops mid-request, one that trickles a byte every 200 ms (never idle for
  /// long, which an idle timeout alone would let through) and one that sends nothing are closed
  /// once the read timeout has passed; the server goes on answering.
  @Test func stalledAndTricklingClientsAreClosed() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    let limits = PixScanLimits(maximumRequestBodyByteCount: 1024, readTimeout: .seconds(1))
    try await Self.withServerAndPort(folder, trash: data.file("Trash"), limits: limits) {
      send, port in
      let head =
        "POST /api/decide HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        + "X-PixScan-Token: \(Self.token.value)\r\nContent-Type: application/json\r\n"
        + "Content-Length: 100\r\n\r\n"
      let halfRead = try await offThePool {
        try RawConnection.readAfterSending(head + "{\"path\":", port: port, timeout: .seconds(15))
      }
      #expect(halfRead == .closed)
      let closedAfter = try await offThePool {
        try RawConnection.bytesTrickledBeforeClose(head: head, port: port)
      }
      // 1 s at 5 bytes a second: closed after about 5 of the 100 bytes.
      #expect(closedAfter.map { $0 < 20 } == true, "\(String(describing: closedAfter))")
      let silent = try await offThePool {
        try RawConnection.readAfterSending("", port: port, timeout: .seconds(15))
      }
      #expect(silent == .closed)
      #expect(try await send("GET", "/api/state", nil).status == 200)
    }
  }

  @Test func tokensAreRandomAndLongEnough() {
    let tokens = Set((0..<100).map { _ in AccessToken().value })
    #expect(tokens.count == 100)
    #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    #expect(!"\(AccessToken())".contains(tokens.first ?? "-"))
  }
}
