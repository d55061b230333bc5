import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore

/// The HTTP API the page uses, over one ``TriageSession``: JSON in and out, errors as
/// `{"error":{"code","message"}}` with the status of their ``PixScanError``.
///
/// | Method and path | What it does |
/// |---|---|
/// | `GET /` | the page |
/// | `GET /api/state?filter=&ahead=` | progress and the next `ahead` undecided photos |
/// | `GET /api/photos?filter=&offset=&limit=` | one page of the listing |
/// | `GET /api/thumbnail?path=&size=small,card,full` | a downscaled JPEG |
/// | `POST /api/decide?filter=&ahead=` `{"path","action"}` | a swipe; answers the new state |
/// | `POST /api/undo` | reverts the last step |
/// | `POST /api/rescan?filter=&ahead=` | lists the folder again; answers the new state |
/// | `GET /api/queue?offset=&limit=` | the delete queue and the bytes it would free |
/// | `POST /api/queue/unqueue` `{"path"}`, `/restore-all`, `/empty` | queue actions |
/// | `POST /api/queue/trash` `{"paths"}` | moves the chosen queued photos to the trash |
/// | `GET /api/info?path=` | a photo's size, time, dimensions and EXIF date |
/// | `GET /api/tutorial`, `POST /api/tutorial/seen` | whether the tutorial was shown here |
/// | `POST /api/start-over` | forgets decisions, texts and the queue (not the trash) |
/// | `POST /api/recognize` `{"path"}` | recognise a photo's text again, in turn with the other changes (400 for a photo in the trash) |
/// | `GET /api/texts?q=&offset=&limit=`, `GET /api/texts.txt` | recognised text, export |
/// | `GET /api/stats` | thumbnail cache hits and misses |
public struct PixScanRoutes: Sendable {
  /// The session the routes act on.
  public let session: TriageSession
  /// The page's HTML.
  public let page: String

  /// Creates the routes for `session`, serving `page` at `/`.
  public init(session: TriageSession, page: String) {
    self.session = session
    self.page = page
  }

  /// The state answer: progress and the next photos.
  struct State: Codable, Sendable {
    var progress: TriageProgress
    var upcoming: [Photo]
  }

  struct PathBody: Codable, Sendable {
    var path: String
  }

  struct PathsBody: Codable, Sendable {
    var paths: [String]
  }

  struct Tutorial: Codable, Sendable {
    var seen: Bool
  }

  struct DecideBody: Codable, Sendable {
    var path: String
    var action: TriageAction
  }

  /// Adds the routes to `router`.
  public func register<Context: RequestContext>(on router: Router<Context>) {
    let session = self.session
    let page = self.page
    router.get("/") { _, _ in
      Self.text(page, type: "text/html", headers: Self.pageHeaders)
    }
    router.get("/api/state") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        try Self.json(await Self.state(session, request))
      }
    }
    router.get("/api/photos") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        let (offset, limit) = try Self.paging(request)
        return try Self.json(
          try await session.photoPage(
            filter: try Self.filter(request), offset: offset, limit: limit))
      }
    }
    router.get("/api/thumbnail") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        let path = try Self.query(request, "path")
        let sizeName = request.uri.queryParameters["size"].map(String.init) ?? "card"
        guard let size = ThumbnailSize(rawValue: sizeName) else {
          throw .badRequest("size must be small, card or full")
        }
        let jpeg = try await session.thumbnail(path: path, size: size)
        var headers = HTTPFields()
        headers[.contentType] = "image/jpeg"
        // The page puts the photo's version in the URL: a cached copy is never stale.
        headers[.cacheControl] = "private, max-age=3600"
        return Response(
          status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
      }
    }
    // The actions: each answers the new state, so the page needs no second request.
    Self.action("/api/decide", on: router, session: session) {
      (request) async throws(PixScanError) in
      let body: DecideBody = try await Self.decode(request, limit: session.limits)
      try await session.decide(path: body.path, action: body.action)
    }
    Self.action("/api/undo", on: router, session: session) { (_) async throws(PixScanError) in
      try await session.undoLast()
    }
    Self.action("/api/rescan", on: router, session: session) { (_) async throws(PixScanError) in
      try await session.rescan()
    }
    Self.action("/api/recognize", on: router, session: session) {
      (request) async throws(PixScanError) in
      let body: PathBody = try await Self.decode(request, limit: session.limits)
      try await session.recognize(path: body.path)
    }
    router.get("/api/queue") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        let (offset, limit) = try Self.paging(request)
        return try Self.json(try await session.queuePage(offset: offset, limit: limit))
      }
    }
    Self.action("/api/queue/unqueue", on: router, session: session) {
      (request) async throws(PixScanError) in
      let body: PathBody = try await Self.decode(request, limit: session.limits)
      try await session.unqueue(path: body.path)
    }
    Self.action("/api/queue/restore-all", on: router, session: session) {
      (_) async throws(PixScanError) in
      try await session.restoreAll()
    }
    router.post("/api/queue/empty") { _, _ in
      await Self.respond { () async throws(PixScanError) in
        try Self.json(try await session.emptyQueue())
      }
    }
    router.post("/api/queue/trash") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        let body: PathsBody = try await Self.decode(request, limit: session.limits)
        guard !body.paths.isEmpty else { throw .badRequest("choose at least one photo") }
        return try Self.json(try await session.emptyQueue(paths: Set(body.paths)))
      }
    }
    router.get("/api/info") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        try Self.json(try await session.photoInfo(path: try Self.query(request, "path")))
      }
    }
    router.get("/api/tutorial") { _, _ in
      await Self.respond { () async throws(PixScanError) in
        try Self.json(Tutorial(seen: try await session.isTutorialSeen()))
      }
    }
    router.post("/api/tutorial/seen") { _, _ in
      await Self.respond { () async throws(PixScanError) in
        try await session.markTutorialSeen()
        return try Self.json(Tutorial(seen: true))
      }
    }
    Self.action("/api/start-over", on: router, session: session) {
      (_) async throws(PixScanError) in
      try await session.startOver()
    }
    router.get("/api/texts") { request, _ in
      await Self.respond { () async throws(PixScanError) in
        let (offset, limit) = try Self.paging(request)
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        guard query.utf8.count <= 1024 else { throw .badRequest("the search is too long") }
        return try Self.json(
          try await session.textPage(query: query, offset: offset, limit: limit))
      }
    }
    router.get("/api/texts.txt") { _, _ in
      Self.text(
        await session.exportedText(), type: "text/plain",
        headers: [.contentDisposition: "attachment; filename=\"pixscan-texts.txt\""])
    }
    router.get("/api/stats") { _, _ in
      await Self.respond { () async throws(PixScanError) in
        try Self.json(await session.thumbnailStatistics())
      }
    }
  }

  // MARK: Helpers

  /// Adds `POST path`: runs `work`, then answers the state (``State``) for the request's
  /// `filter` and `ahead`.
  static func action<Context: RequestContext>(
    _ path: RouterPath, on router: Router<Context>, session: TriageSession,
    _ work: @escaping @Sendable (Request) async throws(PixScanError) -> Void
  ) {
    router.post(path) { request, _ in
      await respond { () async throws(PixScanError) in
        try await work(request)
        return try json(await state(session, request))
      }
    }
  }

  static func state(
    _ session: TriageSession, _ request: Request
  ) async throws(PixScanError)
    -> State
  {
    let filter = try filter(request)
    let ahead = try integer(request, "ahead", default: 4)
    return State(
      progress: await session.progress(filter: filter),
      upcoming: await session.upcoming(filter: filter, count: ahead))
  }

  static func filter(_ request: Request) throws(PixScanError) -> PhotoFilter {
    let name = request.uri.queryParameters["filter"].map(String.init) ?? "all"
    guard let filter = PhotoFilter(rawValue: name) else {
      throw .badRequest("filter must be all or screenshots")
    }
    return filter
  }

  static func paging(_ request: Request) throws(PixScanError) -> (offset: Int, limit: Int) {
    (try integer(request, "offset", default: 0), try integer(request, "limit", default: 100))
  }

  static func integer(
    _ request: Request, _ name: String, default value: Int
  ) throws(PixScanError) -> Int {
    guard let text = request.uri.queryParameters[Substring(name)] else { return value }
    guard let number = Int(text), (0...1_000_000).contains(number) else {
      throw .badRequest("\(name) must be a whole number within 0...1000000")
    }
    return number
  }

  static func query(_ request: Request, _ name: String) throws(PixScanError) -> String {
    guard let value = request.uri.queryParameters[Substring(name)], !value.isEmpty else {
      throw .badRequest("the \(name) parameter is missing")
    }
    return String(value)
  }

  /// Reads at most ``PixScanLimits/maximumRequestBodyByteCount`` bytes of JSON.
  static func decode<T: Decodable>(
    _ request: Request, limit: PixScanLimits
  ) async throws(PixScanError) -> T {
    let maximum = limit.maximumRequestBodyByteCount
    if let length = request.headers[.contentLength].flatMap(Int.init), length > maximum {
      throw .requestTooLarge(maximumByteCount: maximum)
    }
    let buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: maximum)
    } catch {
      throw .requestTooLarge(maximumByteCount: maximum)
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch {
      throw .badRequest("the body is not the JSON this route takes")
    }
  }

  /// A 200 answer of UTF-8 `text` as `type`, with `headers` added.
  /// The page's headers: never cached (the token reaches it in its URL's fragment), never
  /// framed by another site (which could then read what the page shows), its type never
  /// guessed.
  static let pageHeaders: HTTPFields = {
    var fields: HTTPFields = [
      .cacheControl: "no-store", .contentSecurityPolicy: "frame-ancestors 'none'",
    ]
    for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff")] {
      if let name = HTTPField.Name(name) { fields[name] = value }
    }
    return fields
  }()

  static func text(_ text: String, type: String, headers extra: HTTPFields) -> Response {
    var headers = extra
    headers[.contentType] = "\(type); charset=utf-8"
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
  }

  static func json(_ value: some Encodable) throws(PixScanError) -> Response {
    let data: Data
    do {
      data = try JSONEncoder().encode(value)
    } catch {
      throw .badRequest("the answer could not be encoded")
    }
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// Runs `work`, answering a ``PixScanError`` as its JSON error.
  static func respond(_ work: () async throws(PixScanError) -> Response) async -> Response {
    do {
      return try await work()
    } catch {
      return errorResponse(error)
    }
  }

  /// The JSON error answer for `error`, its code noted as the request's outcome (for the log).
  public static func errorResponse(_ error: PixScanError) -> Response {
    RequestOutcome.note(error.code)
    let body = ["error": ["code": error.code, "message": error.errorDescription ?? error.code]]
    let data = (try? JSONEncoder().encode(body)) ?? Data()
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(
      status: .init(code: error.httpStatus), headers: headers,
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }
}
