import DexExamplesTestSupport
import DexKitTesting
import Foundation
import PixScanCore
import Testing

/// The token is asked of every spelling of every route: the request target is sent byte for
/// byte on a raw socket (an HTTP client would tidy `/./` and `//` away before sending).
@Suite("PixScan's guard, deny by default")
struct PixScanGuardTests {
  /// Spellings the router may resolve to `/api/photos` (or to nothing), none of them the plain one.
  static let listingSpellings = [
    "//api/photos", "/./api/photos", "/api/../api/photos", "/%61pi/photos", "/API/photos",
    "/Api/Photos", "/api/photos/", "/api//photos", "/api/photos//", "///api///photos",
    "/api/./photos", "/%2Fapi/photos", "/api%2Fphotos",
  ]
  /// Spellings of the two actions that together trash a photo.
  static let decideSpellings = [
    "//api/decide", "/./api/decide", "/api/../api/decide", "/%61pi/decide", "/API/decide",
    "/api/decide/", "/api//decide",
  ]
  static let emptySpellings = [
    "//api/queue/empty", "/./api/queue/empty", "/api/queue//empty", "/api/queue/empty/",
    "/%61pi/queue/empty", "/api/queue/../queue/empty",
  ]

  /// Sends `method target` with `token` (or none) on a new connection; the answer's status.
  static func status(
    port: Int, _ method: String, _ target: String, token: Bool, body: String? = nil
  ) async throws -> Int? {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    if token { head += "X-PixScan-Token: \(PixScanHTTPTests.token.value)\r\n" }
    if let body {
      head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
    } else if method == "POST" {
      head += "Content-Length: 0\r\n"
    }
    return try await RawConnection.status(answering: head + "\r\n" + (body ?? ""), port: port)
  }

  @Test func everySpellingWithoutTheTokenIsRefused() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try await PixScanHTTPTests.withServerAndPort(folder, trash: data.file("Trash")) { _, port in
      let decide = #"{"path":"cat.jpg","action":"queue"}"#
      for target in Self.listingSpellings {
        for method in ["GET", "HEAD"] {
          let answer = try await Self.status(port: port, method, target, token: false)
          #expect(answer == 403, "\(method) \(target) without the token answered \(answer ?? 0)")
        }
        let post = try await Self.status(port: port, "POST", target, token: false)
        #expect(post == 403, "POST \(target) without the token answered \(post ?? 0)")
      }
      for target in Self.decideSpellings {
        let answer = try await Self.status(port: port, "POST", target, token: false, body: decide)
        #expect(answer == 403, "POST \(target) without the token answered \(answer ?? 0)")
        let get = try await Self.status(port: port, "GET", target, token: false)
        #expect(get == 403, "GET \(target) without the token answered \(get ?? 0)")
      }
      for target in Self.emptySpellings {
        let answer = try await Self.status(port: port, "POST", target, token: false)
        #expect(answer == 403, "POST \(target) without the token answered \(answer ?? 0)")
      }
      // Nothing was queued, nothing trashed.
      #expect(folder.exists("cat.jpg") && !data.exists("Trash/files/cat.jpg"))
      let queue = try await Self.status(port: port, "GET", "/api/queue", token: true)
      #expect(queue == 200)

      // The page alone is open, and only by its exact path; a made-up path is refused too.
      #expect(try await Self.status(port: port, "GET", "/", token: false) == 200)
      #expect(try await Self.status(port: port, "GET", "/?from=bookmark", token: false) == 200)
      for target in ["//", "/.", "/index.html", "/nothing", "/%2F"] {
        let answer = try await Self.status(port: port, "GET", target, token: false)
        #expect(answer == 403, "GET \(target) without the token answered \(answer ?? 0)")
      }
      #expect(try await Self.status(port: port, "POST", "/", token: false) == 403)
    }
  }

  /// With the token the same spellings go on to the router: the doubled slash reaches the
  /// listing (so the refusals above are the guard's, not the router's), and the trash works.
  @Test func theTokenOpensEverySpellingTheRouterKnows() async throws {
    let folder = try TemporaryFolder()
    let data = try TemporaryFolder()
    try folder.addSamplePhotos([.cat])
    try await PixScanHTTPTests.withServerAndPort(folder, trash: data.file("Trash")) { _, port in
      #expect(try await Self.status(port: port, "GET", "//api/photos", token: true) == 200)
      for target in Self.listingSpellings {
        let answer = try await Self.status(port: port, "GET", target, token: true)
        #expect(answer != 403, "GET \(target) with the token answered 403")
      }
      let decide = #"{"path":"cat.jpg","action":"queue"}"#
      #expect(
        try await Self.status(port: port, "POST", "//api/decide", token: true, body: decide) == 200)
      #expect(try await Self.status(port: port, "POST", "//api/queue/empty", token: true) == 200)
      #expect(!folder.exists("cat.jpg") && data.exists("Trash/files/cat.jpg"))
    }
  }
}
