import DexTestSupport
import Foundation
import Testing

@testable import DexCloud

/// The caller's deadline is the client's time budget: retries, waits and each attempt's timeout
/// all end by it.
@Suite("ApiClient deadline (scripted transport)")
struct ClientDeadlineTests {
  static let unavailable = TransportResponse(statusCode: 503, headers: [:], body: Data())

  @Test("A deadline cuts the retries to those whose wait ends before it")
  func retriesEndAtTheDeadline() async throws {
    // random 1: the waits are 1 000 s, 2 000 s, 4 000 s. The policy allows four attempts in
    // 10 000 s. The sleeps are recorded, not slept, but the budget is read from the real clock,
    // so the margins are wide: a loaded CI machine once spent over 10 s of a 30 s deadline
    // before the first wait was weighed.
    let policy = RetryPolicy(
      maximumAttempts: 4, initialBackoff: .seconds(1_000), maximumBackoff: .seconds(4_000),
      maximumElapsed: .seconds(10_000))
    let withoutDeadline = ScriptedTransport(Array(repeating: .respond(Self.unavailable), count: 4))
    let error = await expectedError {
      _ = try await ClientUnitTests.client(withoutDeadline, policy: policy).send(
        Endpoints.vision, body: Data())
    }
    #expect(error?.statusCode == 503)
    #expect(withoutDeadline.sentCount == 4)

    // A 1 500 s deadline: the 1 000 s wait fits (with 500 s to spare), the 2 000 s one would end
    // after it. (The recorded sleeps return at once, so only the budget arithmetic decides.)
    let transport = ScriptedTransport(Array(repeating: .respond(Self.unavailable), count: 4))
    let sleeper = SleepRecorder()
    let cut = await expectedError {
      _ = try await ClientUnitTests.client(transport, policy: policy, sleeper: sleeper).send(
        Endpoints.vision, body: Data(), deadline: .now + .seconds(1_500))
    }
    #expect(cut?.statusCode == 503, "the last failure is reported, not hidden")
    #expect(transport.sentCount == 2)
    #expect(sleeper.requested == [.seconds(1_000)])
  }

  @Test("No attempt's timeout outlasts the deadline")
  func attemptTimeoutsAreCut() async throws {
    let transport = ScriptedTransport([])
    _ = try await ClientUnitTests.client(transport).send(
      Endpoints.vision, body: Data(), deadline: .now + .seconds(60))
    let timeout = try #require(transport.requestedTimeouts.first)
    #expect(timeout <= .seconds(60), "not the 120 s per-request default")
    #expect(timeout > .zero)
    _ = try await ClientUnitTests.client(transport, policy: .default).send(
      Endpoints.vision, body: Data())
    #expect(transport.requestedTimeouts.last == .seconds(120), "the per-request default")
  }

  @Test("A deadline already passed is a timeout, and nothing is sent")
  func passedDeadline() async throws {
    let transport = ScriptedTransport([])
    let error = await expectedError {
      _ = try await ClientUnitTests.client(transport).send(
        Endpoints.vision, body: Data(), deadline: .now - .seconds(1))
    }
    #expect(error?.kind == .timedOut)
    #expect(transport.sentCount == 0)
  }

  @Test("The vision service hands its deadline to the client")
  func visionServicePassesTheDeadline() async throws {
    let transport = ScriptedTransport([
      .fail(DexCloudError(kind: .timedOut, message: "No response within 1 s."))
    ])
    let service = DexVisionService(
      client: ClientUnitTests.client(transport, policy: .none))
    let error = await expectedError {
      _ = try await service.identify(
        imageData: Data([0xFF, 0xD8]), categoryHint: nil, deadline: .now + .seconds(60))
    }
    #expect(error?.kind == .timedOut)
    let timeout = try #require(transport.requestedTimeouts.first)
    #expect(timeout <= .seconds(60), "not the 120 s per-request default")
  }
}
