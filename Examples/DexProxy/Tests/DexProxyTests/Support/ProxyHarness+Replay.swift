import DexCloud
import Testing

@available(macOS 14, iOS 17, tvOS 17, *)
extension ProxyHarness {
  /// Opens a raw session and sends one `/vision` request under it twice, unchanged: expects the
  /// original answered (200) and the replay refused (see ``expectReplayed(_:sourceLocation:)``).
  /// Returns the session, for further requests.
  ///
  /// Why it exists: the security and the metrics tests both start from one refused replay.
  @discardableResult
  func expectAReplayIsRefused(
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> AuthTokenResponse {
    let session = try await rawSession()
    let (first, replay) = try await sendVisionAndReplay(
      try visionBody(), secret: session.sessionSecret, session: session.sessionID)
    #expect(first.statusCode == 200, sourceLocation: sourceLocation)
    expectReplayed(replay, sourceLocation: sourceLocation)
    return session
  }
}

/// Expects a 401 `replayed_request`.
func expectReplayed(
  _ response: TransportResponse, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(response.statusCode == 401, sourceLocation: sourceLocation)
  #expect(errorCode(response.body) == "replayed_request", sourceLocation: sourceLocation)
}
