import DexCloud
import DexCloudServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The proxy's route handlers, with everything they share: the authenticator, the upstream
/// client, the rate limiter and the limits.
///
/// Logs carry the route, status, outcome code and duration; never keys, session ids,
/// signatures, prompts or image data.
@available(macOS 14, iOS 17, tvOS 17, *)
struct ProxyRoutes: Sendable {
  let authenticator: RequestAuthenticator
  let upstream: ChatCompletionsClient
  let limiter: TokenBucketRateLimiter
  let maximumBodyBytes: Int
  /// The shared replay store, if any: `/health` checks it, and its failures are answered with
  /// 503 `replay_store_unavailable`.
  var sharedStore: (any SharedReplayStore)?
  /// Token buckets shared by every instance, if any; while they fail, ``limiter`` (this
  /// instance's own buckets) decides.
  var sharedLimiter: (any SharedRateLimiter)?
  /// The balancers whose `X-Forwarded-For` is believed for the per-address key.
  var trustedProxies: TrustedProxies = .none
  /// The server's prompts: what the model is asked for each task.
  var prompts = ProxyPrompts()
  /// The daily and hourly budgets (per subject, per address, global, sessions per address).
  var budgets: ProxyBudgets?
  /// The cap on `/auth_token` and `/vision` requests this instance works on at once.
  var inFlight = InFlightLimit(maximum: 512)
  /// `/health`'s answer, probed at most once a second.
  var health: HealthProbe?
  /// Where every answered request, upstream call and refusal is counted.
  var metrics = ProxyMetrics()
  /// Whether `GET /metrics` is routed.
  var servesMetrics = false

  func register(on router: Router<ProxyRequestContext>) {
    router.get("/health") { _, context in
      let started = ContinuousClock.now
      if let health, await !health.isAvailable() {
        log(context, route: "/health", status: 503, outcome: "degraded", started: started)
        return ErrorResponse.json(
          status: 503, data: Data(#"{"status":"degraded","replay_store":"unavailable"}"#.utf8))
      }
      log(context, route: "/health", status: 200, outcome: "ok", started: started)
      return ErrorResponse.json(status: 200, data: Data(#"{"status":"ok"}"#.utf8))
    }
    router.post("/auth_token") { request, context in
      await admitted(route: "/auth_token", context: context) {
        await authToken(request, context: context)
      }
    }
    router.post("/vision") { request, context in
      await admitted(route: "/vision", context: context) {
        await vision(request, context: context)
      }
    }
    if servesMetrics {
      router.get("/metrics") { _, _ in
        var fields = HTTPFields()
        fields[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(
          status: .ok, headers: fields,
          body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
      }
    }
  }

  // MARK: Routes

  func authToken(_ request: Request, context: ProxyRequestContext) async -> Response {
    let started = ContinuousClock.now
    let route = "/auth_token"
    let signed: SignedRequest
    switch await admit(request, route: route, rateKey: addressKey(request, context)) {
    case .success(let value): signed = value
    case .failure(let error): return finish(error.response, context, route, error.outcome, started)
    }
    do {
      try await authenticator.authenticateBootstrap(signed)
    } catch {
      return refuse(error, context, route, started)
    }
    let subject =
      (try? JSONDecoder().decode(AuthTokenRequest.self, from: signed.body))?.subject ?? "anonymous"
    if let budgets {
      let charges = budgets.sessionCharges(address: budgetAddress(request, context))
      if let refusal = await spend(budgets, charges, on: Date()) {
        return finish(refusal.response, context, route, refusal.outcome, started)
      }
    }
    do {
      let session = try authenticator.issuer.issue(subject: subject)
      let data = try JSONEncoder().encode(session)
      return finish(ErrorResponse.json(status: 200, data: data), context, route, "issued", started)
    } catch let error as SessionIssuer.IssueError {
      let response = ErrorResponse.make(
        status: 400, message: error.description, type: "invalid_request_error",
        code: "invalid_subject")
      return finish(response, context, route, "invalid_subject", started)
    } catch {
      let response = ErrorResponse.make(
        status: 500, message: "The session could not be issued.", type: "server_error",
        code: "internal_error")
      return finish(response, context, route, "internal_error", started)
    }
  }

  func vision(_ request: Request, context: ProxyRequestContext) async -> Response {
    let started = ContinuousClock.now
    let route = "/vision"
    // A session id that validates keys the limit to that session; anything else (missing,
    // forged) falls back to the remote address, so made-up ids cannot dodge the limit.
    let sessionHeader = ProxyHeaderNames.session.flatMap { request.headers[$0] }
    let key: String
    if let sessionHeader, (try? authenticator.issuer.validate(sessionID: sessionHeader)) != nil {
      key = "session:\(sessionHeader)"
    } else {
      key = addressKey(request, context)
    }
    let signed: SignedRequest
    switch await admit(request, route: route, rateKey: key) {
    case .success(let value): signed = value
    case .failure(let error): return finish(error.response, context, route, error.outcome, started)
    }
    let claims: SessionClaims
    do {
      claims = try await authenticator.authenticateSession(signed)
    } catch {
      return refuse(error, context, route, started)
    }
    guard let body = try? JSONDecoder().decode(VisionRequest.self, from: signed.body),
      !body.image.isEmpty, Data(base64Encoded: body.image) != nil
    else {
      let response = ErrorResponse.make(
        status: 400,
        message:
          "The body must be JSON {\"image\": <base64>, \"task\": \"identify\" or \"ask\"}.",
        type: "invalid_request_error", code: "invalid_body")
      return finish(response, context, route, "invalid_body", started)
    }
    let prompt: String
    do {
      prompt = try prompts.prompt(for: body)
    } catch {
      let response = ErrorResponse.make(
        status: 400,
        message: "The question is over \(prompts.maximumQuestionCharacters) characters.",
        type: "invalid_request_error", code: "prompt_too_long")
      return finish(response, context, route, "prompt_too_long", started)
    }
    // Counted once the body is known to be usable, and refunded below if the upstream fails.
    let budgetDate = Date()
    let charges =
      budgets?.visionCharges(
        subject: claims.subject, address: budgetAddress(request, context)) ?? []
    if let budgets, let refusal = await spend(budgets, charges, on: budgetDate) {
      return finish(refusal.response, context, route, refusal.outcome, started)
    }
    let upstreamStarted = ContinuousClock.now
    do {
      let reply: VisionResponse
      do {
        reply = try await upstream.complete(prompt: prompt, image: body.image)
        metrics.recordUpstream(outcome: "ok", duration: ContinuousClock.now - upstreamStarted)
      } catch {
        metrics.recordUpstream(outcome: error.code, duration: ContinuousClock.now - upstreamStarted)
        if let budgets, !charges.isEmpty, await !budgets.refund(charges, on: budgetDate) {
          context.logger.notice("Budget refund failed; the call stays counted")
        }
        throw error
      }
      let data = try JSONEncoder().encode(reply)
      return finish(ErrorResponse.json(status: 200, data: data), context, route, "ok", started)
    } catch let error as UpstreamError {
      let response = ErrorResponse.make(
        status: error.httpStatus, message: error.description, type: "upstream_error",
        code: error.code)
      return finish(response, context, route, error.code, started)
    } catch {
      let response = ErrorResponse.make(
        status: 500, message: "The reply could not be encoded.", type: "server_error",
        code: "internal_error")
      return finish(response, context, route, "internal_error", started)
    }
  }

  // MARK: Helpers

  /// Applies the rate limit for `rateKey`, then reads the signed parts of `request`; fails with
  /// a ready 429 or 413 response.
  private func admit(
    _ request: Request, route: String, rateKey: String
  ) async -> Result<
    SignedRequest, ResponseError
  > {
    if case .limited(let seconds) = await acquire(rateKey) {
      metrics.recordRateLimitRefusal(route: route)
      var headers = HTTPFields()
      headers[.retryAfter] = String(seconds)
      let response = ErrorResponse.make(
        status: 429, message: "Too many requests; retry after \(seconds) s.",
        type: "rate_limit_error", code: "rate_limit_exceeded", headers: headers)
      return .failure(ResponseError(response: response, outcome: "rate_limited"))
    }
    let tooLarge = ResponseError(
      response: ErrorResponse.make(
        status: 413, message: "The request body is over \(maximumBodyBytes) bytes.",
        type: "invalid_request_error", code: "request_too_large"),
      outcome: "body_too_large")
    if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
      return .failure(tooLarge)
    }
    let bytes: ByteBuffer
    do {
      bytes = try await request.body.collect(upTo: maximumBodyBytes)
    } catch {
      return .failure(tooLarge)
    }
    var headers: [String: String] = [:]
    for name in [DexCloudHeader.timestamp, DexCloudHeader.signature, DexCloudHeader.session] {
      if let field = HTTPField.Name(name), let value = request.headers[field] {
        headers[name] = value
      }
    }
    return .success(
      SignedRequest(
        method: request.method.rawValue, path: request.head.path ?? "/", headers: headers,
        body: Data(bytes.readableBytesView)))
  }

  /// Takes `charges` from `budgets`; a ready 429 (with `Retry-After` until the budget's next
  /// day or hour) or 503 when the count cannot be made.
  private func spend(
    _ budgets: ProxyBudgets, _ charges: [ProxyBudgets.Charge], on date: Date
  ) async -> ResponseError? {
    guard !charges.isEmpty else { return nil }
    switch await budgets.spend(charges, on: date) {
    case .counted:
      return nil
    case .unavailable:
      var headers = HTTPFields()
      headers[.retryAfter] = "1"
      return ResponseError(
        response: ErrorResponse.make(
          status: 503, message: "The quota store is unavailable; retry later.",
          type: "server_error", code: ErrorResponse.replayStoreUnavailable, headers: headers),
        outcome: ErrorResponse.replayStoreUnavailable)
    case .spent(let charge, let seconds):
      metrics.recordQuotaRefusal()
      var headers = HTTPFields()
      headers[.retryAfter] = String(seconds)
      return ResponseError(
        response: ErrorResponse.make(
          status: 429, message: charge.message, type: "rate_limit_error", code: charge.code,
          headers: headers),
        outcome: charge.code)
    }
  }

  /// Runs `handler` if fewer than ``inFlight``'s maximum requests are being worked on, else
  /// answers 503 `busy` with `Retry-After: 1` at once.
  private func admitted(
    route: String, context: ProxyRequestContext, _ handler: () async -> Response
  ) async -> Response {
    guard inFlight.enter() else {
      let started = ContinuousClock.now
      var headers = HTTPFields()
      headers[.retryAfter] = "1"
      let response = ErrorResponse.make(
        status: 503, message: "The proxy is busy; retry shortly.", type: "server_error",
        code: "busy", headers: headers)
      return finish(response, context, route, "busy", started)
    }
    defer { inFlight.leave() }
    return await handler()
  }

  /// The client's address as the budgets count it (an IPv6 address by its /64).
  private func budgetAddress(_ request: Request, _ context: ProxyRequestContext) -> String {
    TrustedProxies.budgetKey(clientAddress(request, context))
  }

  /// The client's address: the remote address, or the client named by `X-Forwarded-For` when
  /// the remote address is a trusted balancer.
  private func clientAddress(_ request: Request, _ context: ProxyRequestContext) -> String? {
    let forwarded = ProxyHeaderNames.forwardedFor.flatMap { name in
      let values = request.headers[values: name]
      return values.isEmpty ? nil : values.joined(separator: ",")
    }
    return trustedProxies.clientAddress(remote: context.remoteIP, forwardedFor: forwarded)
  }

  /// The per-address rate key: the client's address (see ``clientAddress(_:_:)``), an IPv6
  /// address by its /64.
  private func addressKey(_ request: Request, _ context: ProxyRequestContext) -> String {
    "ip:\(budgetAddress(request, context))"
  }

  /// One token for `key`: from the shared buckets when they answer, else from this instance's.
  private func acquire(_ key: String) async -> TokenBucketRateLimiter.Decision {
    if let sharedLimiter, await !sharedLimiter.isFailing(),
      let decision = try? await sharedLimiter.acquire(key, limit: limiter.limit)
    {
      return decision
    }
    return await limiter.acquire(key)
  }

  /// The response to a verification failure. With a shared store, the verifier's
  /// `replay_cache_full` (any store failure) means the store is unreachable: 503
  /// `replay_store_unavailable` with `Retry-After`.
  private func refuse(
    _ error: RequestVerificationError, _ context: ProxyRequestContext, _ route: String,
    _ started: ContinuousClock.Instant
  ) -> Response {
    guard error == .replayCacheFull, sharedStore != nil else {
      return finish(ErrorResponse.verification(error), context, route, error.code, started)
    }
    var headers = HTTPFields()
    headers[.retryAfter] = "1"
    let response = ErrorResponse.make(
      status: 503, message: "The replay store is unavailable; retry later.",
      type: "server_error", code: ErrorResponse.replayStoreUnavailable, headers: headers)
    return finish(response, context, route, ErrorResponse.replayStoreUnavailable, started)
  }

  private func finish(
    _ response: Response, _ context: ProxyRequestContext, _ route: String, _ outcome: String,
    _ started: ContinuousClock.Instant
  ) -> Response {
    log(
      context, route: route, status: Int(response.status.code), outcome: outcome, started: started)
    return response
  }

  private func log(
    _ context: ProxyRequestContext, route: String, status: Int, outcome: String,
    started: ContinuousClock.Instant
  ) {
    let elapsed = ContinuousClock.now - started
    metrics.recordRequest(route: route, status: status, outcome: outcome, duration: elapsed)
    let milliseconds = elapsed.timeInterval * 1000
    let level: Logger.Level = status >= 500 ? .warning : (status >= 400 ? .notice : .info)
    context.logger.log(
      level: level, "Request handled",
      metadata: [
        "route": "\(route)", "status": "\(status)", "outcome": "\(outcome)",
        "duration_ms": "\(String(format: "%.1f", milliseconds))",
      ])
  }
}

/// A ready response carried through a `Result` failure.
@available(macOS 14, iOS 17, tvOS 17, *)
struct ResponseError: Error {
  let response: Response
  /// The outcome code logged for it.
  let outcome: String
}

/// DexCloud's header names as HTTP field names (they are valid tokens, so never `nil`).
enum ProxyHeaderNames {
  static let session = HTTPField.Name(DexCloudHeader.session)
  static let forwardedFor = HTTPField.Name("X-Forwarded-For")
}
