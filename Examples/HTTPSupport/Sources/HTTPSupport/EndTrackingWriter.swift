import HTTPTypes
import Hummingbird

/// A response body writer that passes everything on to the one it wraps and notes whether the
/// body ended its response (``finish(_:)``), so that ``RequestLogMiddleware`` can end a streamed
/// response whose body returned without ending it.
///
/// Hummingbird leaves ending the response to the body: one that returns without it leaves the
/// client waiting for the last chunk and the connection waiting for the next request.
struct EndTrackingWriter: ResponseBodyWriter {
  /// Whether a body has ended its response, shared with the copy the body writes to.
  final class End {
    private(set) var isEnded = false

    func mark() { isEnded = true }
  }

  private var parent: any ResponseBodyWriter
  let end: End

  /// Wraps `parent`, noting its end in `end`.
  init(_ parent: any ResponseBodyWriter, end: End) {
    self.parent = parent
    self.end = end
  }

  mutating func write(_ buffer: ByteBuffer) async throws {
    try await parent.write(buffer)
  }

  mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
    try await parent.write(contentsOf: buffers)
  }

  /// Noted before it is passed on: an end that fails (the client went away) is not tried again.
  consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
    end.mark()
    try await parent.finish(trailingHeaders)
  }
}
