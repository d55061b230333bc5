import DexCloud
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Testing

@testable import DexProxy

/// A streamed `/vision` reply ends its response whichever way the relay ends: the reply done,
/// the model failing or too slow, the client gone, the task cancelled. A response left without
/// its end keeps the client waiting for the last chunk and its connection (and a graceful
/// shutdown) waiting for the next request.
@Suite struct VisionRelayTests {
  /// What a ``RecordingWriter`` was given.
  final class Record: Sendable {
    private let state = NIOLockedValueBox<(text: String, ends: Int)>(("", 0))
    /// Every write fails, as when the client has gone.
    let failing: Bool
    private let firstWrite: AsyncStream<Void>.Continuation
    /// Yields once something was written.
    let written: AsyncStream<Void>

    init(failing: Bool = false) {
      self.failing = failing
      (written, firstWrite) = AsyncStream.makeStream(of: Void.self)
    }

    var text: String { state.withLockedValue { $0.text } }
    var ends: Int { state.withLockedValue { $0.ends } }

    func append(_ buffer: ByteBuffer) {
      state.withLockedValue { $0.text += String(buffer: buffer) }
      firstWrite.yield()
    }

    func end() { state.withLockedValue { $0.ends += 1 } }
  }

  /// A response body writer that keeps what it is given in a ``Record``.
  struct RecordingWriter: ResponseBodyWriter {
    struct Gone: Error {}
    let record: Record

    mutating func write(_ buffer: ByteBuffer) async throws {
      guard !record.failing else { throw Gone() }
      record.append(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
      record.end()
      guard !record.failing else { throw Gone() }
    }
  }

  /// The model's pieces, and whether their consumer stopped reading them early.
  final class Pieces: Sendable {
    let stream: AsyncThrowingStream<String, any Error>
    let sink: AsyncThrowingStream<String, any Error>.Continuation
    private let cancelled = NIOLockedValueBox(false)

    init() {
      (stream, sink) = AsyncThrowingStream.makeStream(of: String.self)
      sink.onTermination = { [cancelled] termination in
        if case .cancelled = termination { cancelled.withLockedValue { $0 = true } }
      }
    }

    /// Whether the relay stopped reading (which cancels the model call).
    var isCancelled: Bool { cancelled.withLockedValue { $0 } }
  }

  /// Relays `pieces` for `task` into `record`, in a task of its own.
  static func relay(
    _ pieces: Pieces, _ task: VisionRequest.Kind = .ask, into record: Record
  ) -> Task<String, Never> {
    Task {
      var writer: any ResponseBodyWriter = RecordingWriter(record: record)
      var relay = VisionRelay(task: task)
      return await relay.stream(pieces.stream, to: &writer)
    }
  }

  @Test func aReplyThatEndsEndsTheResponse() async {
    let pieces = Pieces()
    let record = Record()
    pieces.sink.yield("A bowl ")
    pieces.sink.yield("of ramen.")
    pieces.sink.finish()
    let code = await Self.relay(pieces, into: record).value
    #expect(code == "ok")
    #expect(record.text.contains("event: done"))
    #expect(record.ends == 1)
  }

  @Test(arguments: [UpstreamError.timedOut, .unreachable, .responseTooLarge])
  func aModelThatFailsEndsTheResponseAfterItsErrorEvent(_ error: UpstreamError) async {
    let pieces = Pieces()
    let record = Record()
    pieces.sink.yield(#"{"commonName": "Monstera"#)
    pieces.sink.finish(throwing: error)
    let code = await Self.relay(pieces, .identify, into: record).value
    #expect(code == error.code)
    #expect(record.text.contains("event: error"))
    #expect(record.text.contains(error.code))
    #expect(record.ends == 1)
  }

  /// The client gone: the relay stops, stops the model call, and still tries to end the
  /// response (which fails, harmlessly).
  @Test func aClientThatLeftStillHasItsResponseEnded() async {
    let pieces = Pieces()
    let record = Record(failing: true)
    pieces.sink.yield("A bowl ")
    let code = await Self.relay(pieces, into: record).value
    #expect(code == UpstreamError.cancelled.code)
    #expect(record.ends == 1)
    #expect(pieces.isCancelled)
  }

  /// The relay's task cancelled (a server stopping) while the model is still writing: the
  /// relay stops, stops the model call and ends the response.
  @Test func aCancelledRelayEndsTheResponse() async {
    let pieces = Pieces()
    let record = Record()
    pieces.sink.yield("A bowl ")
    let relay = Self.relay(pieces, into: record)
    for await _ in record.written { break }
    relay.cancel()
    let code = await relay.value
    #expect(code == UpstreamError.cancelled.code)
    #expect(record.text.contains("A bowl "))
    #expect(!record.text.contains("event: done"))
    #expect(record.ends == 1)
    #expect(pieces.isCancelled)
  }
}
