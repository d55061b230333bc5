import Foundation
import Logging

extension ApiClient {
  /// Whether a server-minus-local clock `offset` is small enough to adopt.
  static func isAdoptable(_ offset: TimeInterval, bound: Duration) -> Bool {
    let limit = Double(bound.components.seconds) + Double(bound.components.attoseconds) * 1e-18
    return offset.isFinite && abs(offset) <= limit
  }

  /// The attempt loop: sign, send, classify, then retry, refresh, correct the clock, or fail.
  func perform(
    _ endpoint: Endpoint, url: URL, body: Data, timeout: Duration,
    deadline: ContinuousClock.Instant? = nil, session: SessionCredential?,
    streamInto slot: StreamSlot? = nil
  ) async throws(DexCloudError) -> TransportResponse {
    let policy = configuration.retryPolicy
    let clock = ContinuousClock()
    let started = clock.now
    // One budget for the whole call: the policy's, cut to the caller's deadline.
    var budgetEnd = started + policy.maximumElapsed
    if let deadline { budgetEnd = min(budgetEnd, deadline) }
    let path = Self.signedPath(of: url)
    var session = session
    var attempt = 0
    var correctedClock = false
    var refreshedAfter401 = false
    var resignedAfterReplay = false

    while true {
      attempt += 1
      if Task.isCancelled { throw .cancelled() }
      let remaining = budgetEnd - clock.now
      guard remaining > .zero else {
        throw DexCloudError.timedOut(after: max(budgetEnd - started, .zero))
      }
      let signed = sign(
        endpoint, url: url, path: path, body: body, session: session,
        accept: slot == nil ? "application/json" : "text/event-stream")
      let redactor = redactor(session: session, signature: signed.signature)
      logger.debug(
        "Sending request",
        metadata: ["endpoint": "\(endpoint.path)", "attempt": "\(attempt)"])

      let response: TransportResponse
      do {
        if let slot {
          response = try await slot.exchange(
            signed.request, timeout: min(timeout, remaining), on: transport)
        } else {
          response = try await transport.send(signed.request, timeout: min(timeout, remaining))
        }
      } catch {
        let failure = Self.classify(error, redactor: redactor)
        if failure.kind == .cancelled || Task.isCancelled { throw .cancelled() }
        // A response over the limit would be over it again.
        guard failure.kind != .payloadTooLarge, attempt < policy.maximumAttempts else {
          throw failure
        }
        let delay = policy.backoff(forRetry: attempt, unitRandom: random())
        guard clock.now + delay < budgetEnd else { throw failure }
        logger.notice(
          "Request failed; retrying",
          metadata: [
            "endpoint": "\(endpoint.path)", "attempt": "\(attempt)",
            "error": "\(failure.kind.rawValue)", "delay_ms": "\(Self.milliseconds(delay))",
          ])
        try await pause(delay)
        continue
      }

      let status = response.statusCode
      logger.debug(
        "Received response",
        metadata: ["endpoint": "\(endpoint.path)", "attempt": "\(attempt)", "status": "\(status)"])
      if (200..<300).contains(status) { return response }
      let failure = Self.httpError(response, redactor: redactor)

      if status == 401 {
        if failure.apiError?.code == SigningErrorCode.timestampOutOfWindow.rawValue,
          !correctedClock,
          let dateText = response.value(forHeader: "Date"),
          let serverDate = HTTPDate.parse(dateText)
        {
          correctedClock = true
          let offset = serverDate.timeIntervalSince(now())
          guard Self.isAdoptable(offset, bound: configuration.maximumClockCorrection) else {
            logger.warning(
              "Server refused our timestamp; its clock is too far from ours to adopt",
              metadata: [
                "endpoint": "\(endpoint.path)",
                "offset_s": "\(offset.isFinite ? Int(offset) : 0)",
              ])
            throw failure
          }
          clockOffset = offset
          attempt -= 1
          logger.notice(
            "Server refused our timestamp; adopting its clock",
            metadata: ["endpoint": "\(endpoint.path)", "offset_s": "\(Int(clockOffset))"])
          continue
        }
        if failure.apiError?.code == SigningErrorCode.replayed.rawValue, !resignedAfterReplay {
          // Another client instance sent an identical request in the same second; the next
          // signing picks a later timestamp because this signature is remembered.
          resignedAfterReplay = true
          attempt -= 1
          logger.notice(
            "Server saw our signature before; re-signing",
            metadata: ["endpoint": "\(endpoint.path)"])
          continue
        }
        if endpoint.signing == .session, !refreshedAfter401 {
          refreshedAfter401 = true
          attempt -= 1
          logger.notice(
            "Session refused; refreshing once", metadata: ["endpoint": "\(endpoint.path)"])
          let stale = session?.sessionID
          session = try await credential(by: budgetEnd) { () throws(DexCloudError) in
            try await self.refreshCredential(replacing: stale)
          }
          continue
        }
        throw failure
      }

      guard policy.retryableStatuses.contains(status), attempt < policy.maximumAttempts else {
        throw failure
      }
      var delay = policy.backoff(forRetry: attempt, unitRandom: random())
      // A date is the server's: read it against the server's clock (the response's own Date,
      // else ours plus the offset learned), or a device minutes off waits minutes too long.
      let serverNow =
        response.value(forHeader: "Date").flatMap(HTTPDate.parse)
        ?? now().addingTimeInterval(clockOffset)
      if let header = response.value(forHeader: "Retry-After"),
        let retryAfter = HTTPDate.retryAfter(header, now: serverNow)
      {
        guard retryAfter <= policy.maximumRetryAfter else { throw failure }
        delay = retryAfter
      }
      guard clock.now + delay < budgetEnd else { throw failure }
      logger.notice(
        "Server asked us to retry",
        metadata: [
          "endpoint": "\(endpoint.path)", "attempt": "\(attempt)", "status": "\(status)",
          "delay_ms": "\(Self.milliseconds(delay))",
        ])
      try await pause(delay)
    }
  }

  /// Signs one attempt with a fresh timestamp.
  private func sign(
    _ endpoint: Endpoint, url: URL, path: String, body: Data, session: SessionCredential?,
    accept: String
  ) -> (request: TransportRequest, signature: String) {
    let signer = RequestSigner(secret: session?.secret ?? configuration.bootstrapKey)
    let local = now()
    var timestamp = Int64((local.timeIntervalSince1970 + clockOffset).rounded(.down))
    var headers = signer.headers(
      method: endpoint.method, path: path, body: body, timestamp: timestamp)
    // Timestamps have one-second resolution, so a retry (or an identical request) in the same
    // second would repeat a signature the server's replay cache already holds. Move the
    // timestamp forward until the signature is new; the window is ±300 s, a few seconds ahead
    // is harmless.
    while let signature = headers[DexCloudHeader.signature], recentSignatures[signature] != nil {
      timestamp += 1
      headers = signer.headers(
        method: endpoint.method, path: path, body: body, timestamp: timestamp)
    }
    let signature = headers[DexCloudHeader.signature] ?? ""
    rememberSignature(signature, at: local)
    if let session { headers[DexCloudHeader.session] = session.sessionID }
    headers["content-type"] = "application/json"
    headers["accept"] = accept
    return (
      TransportRequest(method: endpoint.method, url: url, headers: headers, body: body), signature
    )
  }

  /// Remembers a sent signature for the replay window, keeping the set bounded.
  private func rememberSignature(_ signature: String, at date: Date) {
    if recentSignatures.count >= 1024 {
      let horizon = date.addingTimeInterval(-610)
      recentSignatures = recentSignatures.filter { $0.value > horizon }
      if recentSignatures.count >= 1024 { recentSignatures.removeAll() }
    }
    recentSignatures[signature] = date
  }

  /// Waits between attempts; cancellation during the wait ends the call.
  private func pause(_ delay: Duration) async throws(DexCloudError) {
    do {
      try await sleep(delay)
    } catch {
      throw .cancelled()
    }
    if Task.isCancelled { throw .cancelled() }
  }

  static func classify(_ error: any Error, redactor: Redactor) -> DexCloudError {
    if error is CancellationError { return .cancelled() }
    guard let error = error as? DexCloudError else {
      return DexCloudError(kind: .network, message: "The transport failed.")
    }
    return DexCloudError(
      kind: error.kind, message: redactor.redact(error.message), statusCode: error.statusCode,
      bodyExcerpt: error.bodyExcerpt.map(redactor.redact), apiError: nil)
  }

  static func httpError(_ response: TransportResponse, redactor: Redactor) -> DexCloudError {
    let detail = APIErrorDetail.parse(response.body)?.redacted(by: redactor)
    return DexCloudError(
      kind: .http,
      message: "The server answered \(response.statusCode).",
      statusCode: response.statusCode,
      bodyExcerpt: redactor.excerpt(of: response.body),
      apiError: detail)
  }

  static func milliseconds(_ duration: Duration) -> Int64 {
    Int64((duration.timeInterval * 1000).rounded())
  }
}
