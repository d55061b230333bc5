import Foundation

extension ApiClient {
  /// Sends a signed request asking for a streamed reply (`Accept: text/event-stream`) and
  /// returns as soon as a successful (2xx) response's head arrives, with its body as it
  /// streams.
  ///
  /// Signing, the session and its refresh, clock correction and retries work as in
  /// ``send(_:body:timeout:deadline:)``, up to the response's head: once a successful body
  /// has begun nothing is retried (what arrived could not be taken back). `timeout` (the
  /// configuration's default when `nil`) and `deadline` bound the whole call, the body
  /// included: the body throws ``DexCloudError/Kind/timedOut`` when they pass. Ending the
  /// iteration of the body, or cancelling its task, cancels the request.
  ///
  /// - Throws: ``DexCloudError`` for every failure before the body, including non-2xx
  ///   statuses.
  public func stream(
    _ endpoint: Endpoint, body: Data, timeout: Duration? = nil,
    deadline: ContinuousClock.Instant? = nil
  ) async throws(DexCloudError) -> TransportStreamResponse {
    let limit = configuration.maximumRequestBodyBytes
    guard body.count <= limit else { throw .payloadTooLarge(size: body.count, limit: limit) }
    let url = try url(for: endpoint)
    var session: SessionCredential? = nil
    if endpoint.signing == .session { session = try await currentCredential(deadline: deadline) }
    let slot = StreamSlot()
    let head = try await perform(
      endpoint, url: url, body: body, timeout: timeout ?? configuration.requestTimeout,
      deadline: deadline, session: session, streamInto: slot)
    guard let response = slot.response else {
      return TransportStreamResponse(head)
    }
    return response
  }
}
