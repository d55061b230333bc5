import DexCloud
import DexCloudServer
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Logging

/// The proxy's route handlers, with everything they share: the authenticator, the upstream
/// client, the rate limiter and the limits.
///
/// Each answer notes its outcome code (``RequestOutcome``); ``RequestLogMiddleware`` logs and
/// counts it with the route, status and duration, never keys, session ids, signatures, prompts
/// or image data.
@available(macOS 14, iOS 17, tvOS 17, *)
struct ProxyRoutes: Sendable {
  let authenticator: RequestAuthenticator
  /// Records `/auth_token` signatures against replay: the authenticator's own verifier, or one
  /// with a replay cache of its own (see ``DexProxyApplication/make(configuration:replayCache:bootstrapReplayCache:transport:logger:metrics:onServerRunning:)``).
  let bootstrapVerifier: RequestVerifier
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
  /// The cap on `/vision` requests this instance works on at once (in all, per address, per
  /// session, and on the body bytes they declare): a slot is taken only once the request's
  /// session id has verified (it is a stateless, signed token), so a client without a session
  /// never holds one.
  var inFlight = InFlightLimit(
    maximum: 512, maximumPerSession: 4, maximumBytes: ProxyConfiguration.defaultBodyBytesInFlight,
    largestBody: 8 << 20)
  /// The separate, smaller cap on `/auth_token` requests: a slot is taken only once the
  /// request's small body has arrived whole (within ``authTokenBodyTimeout(_:)``), so bodies
  /// trickled by strangers hold no slot.
  var authInFlight = InFlightLimit(maximum: 64, maximumPerAddress: 4)
  /// `/health`'s answer, probed at most once a second.
  var health: HealthProbe?
  /// Where every answered request, upstream call and refusal is counted.
  var metrics = ProxyMetrics()
  /// Whether `GET /metrics` is routed.
  var servesMetrics = false

  func register(on router: Router<ProxyRequestContext>) {
    router.get("/health") { _, _ in
      if let health, await !health.isAvailable() {
        return answer(
          ErrorResponse.json(
            status: 503, data: Data(#"{"status":"degraded","replay_store":"unavailable"}"#.utf8)),
          "degraded")
      }
      return answer(ErrorResponse.json(status: 200, data: Data(#"{"status":"ok"}"#.utf8)), "ok")
    }
    // Anyone holding the app's bootstrap key may ask for a session: its headers are checked
    // and its small body read whole before it takes one of the few /auth_token slots.
    router.post("/auth_token") { request, context in
      switch await bufferedAuthToken(request, context: context) {
      case .failure(let error):
        return answer(error)
      case .success(let buffered):
        return await admitted(buffered, pool: authInFlight, context: context) {
          await authToken(buffered, context: context)
        }
      }
    }
    // Only a client holding a session may take a /vision slot (and have its body read).
    // Its slot counts against the address's cap, and the body it declares (the largest allowed
    // when it declares none) against the bytes all bodies, and the address's, may buffer; its
    // session is counted once the signature verifies (``vision(_:context:)``).
    router.post("/vision") { request, context in
      if let refusal = sessionRefusal(request) {
        return answer(refusal)
      }
      let declared = request.headers[.contentLength].flatMap(Int.init) ?? maximumBodyBytes
      return await admitted(
        request, pool: inFlight, bytes: min(declared, maximumBodyBytes), context: context
      ) {
        await vision(request, context: context)
      }
    }
    if servesMetrics {
      // Only at exactly `/metrics`: Hummingbird's router also matches `//metrics`, `/metrics/`
      // and HEAD, which a load balancer's rule that keeps `/metrics` private would not match.
      router.get("/metrics") { request, _ in
        guard request.method == .get, request.uri.path == "/metrics" else {
          return Response(status: .notFound)
        }
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
    let route = "/auth_token"
    let signed: SignedRequest
    // The address's token was taken before the body was read (bufferedAuthToken).
    switch await admit(
      request, route: route, rateKeys: [],
      bodyLimit: min(maximumBodyBytes, Self.maximumAuthTokenBodyBytes),
      validateHeaders: { request throws(RequestVerificationError) in
        try authenticator.validateBootstrapHeaders(request)
      })
    {
    case .success(let value): signed = value
    case .failure(let error): return answer(error)
    }
    // The signature is checked, then the sessions-per-address budget taken, and only then is
    // the signature recorded against replay: a request the budget refuses takes no room in the
    // replay cache.
    let verified: VerifiedSignature
    do {
      verified = try authenticator.verifyBootstrapSignature(signed)
    } catch {
      return refuse(error)
    }
    // Without a subject each session gets its own: one shared default would let any holder of
    // the bootstrap key spend every default install's daily quota.
    let subject =
      (try? JSONDecoder().decode(AuthTokenRequest.self, from: signed.body))?.subject
      ?? Self.generatedSubject()
    let budgetDate = Date()
    let charges = budgets?.sessionCharges(address: budgetAddress(request, context)) ?? []
    if let refusal = await chargeThenRecord(
      charges, on: budgetDate, verified, recorder: bootstrapVerifier, context: context)
    {
      return refusal
    }
    do {
      let session = try authenticator.issuer.issue(subject: subject)
      let data = try JSONEncoder().encode(session)
      return answer(ErrorResponse.json(status: 200, data: data), "issued")
    } catch let error as SessionIssuer.IssueError {
      let response = ErrorResponse.make(
        status: 400, message: error.description, type: "invalid_request_error",
        code: "invalid_subject")
      return answer(response, "invalid_subject")
    } catch {
      let response = ErrorResponse.make(
        status: 500, message: "The session could not be issued.", type: "server_error",
        code: "internal_error")
      return answer(response, "internal_error")
    }
  }

  func vision(_ request: Request, context: ProxyRequestContext) async -> Response {
    let route = "/vision"
    // Every request takes a token from its address's bucket, so sessions minted in bulk do not
    // multiply an address's rate; a request whose signature verifies takes one from its
    // session's bucket too (below), so one session cannot use all of a shared address's.
    let signed: SignedRequest
    switch await admit(
      request, route: route, rateKeys: [addressKey(request, context)], bodyLimit: maximumBodyBytes,
      validateHeaders: { request throws(RequestVerificationError) in
        _ = try authenticator.validateSessionHeaders(request)
      })
    {
    case .success(let value): signed = value
    case .failure(let error): return answer(error)
    }
    let claims: SessionClaims
    let verified: VerifiedSignature
    do {
      (claims, verified) = try authenticator.verifySessionSignature(signed)
    } catch {
      return refuse(error)
    }
    // Only now: a session id is public (it travels in every request's headers), so a bucket
    // or a count taken before the signature verified could be spent by anyone who saw the id.
    if let sessionID = signed.sessionID {
      // The session's share of the slots first (a call refused as busy spends no token), held
      // with the request's own slot (a streamed reply keeps both until it ends).
      guard inFlight.enterSession(sessionID) else { return busy() }
      let inFlight = inFlight
      if let slot = InFlightSlot.current {
        slot.alsoOnRelease { inFlight.leaveSession(sessionID) }
      } else {
        inFlight.leaveSession(sessionID)
      }
      if let refusal = await rateLimited("session:\(sessionID)", route: route) {
        return answer(refusal)
      }
    }
    func badRequest(_ code: String, _ message: String) -> Response {
      let response = ErrorResponse.make(
        status: 400, message: message, type: "invalid_request_error", code: code)
      return answer(response, code)
    }
    guard let body = try? JSONDecoder().decode(VisionRequest.self, from: signed.body),
      !body.image.isEmpty, Data(base64Encoded: body.image) != nil
    else {
      return badRequest(
        "invalid_body",
        "The body must be JSON {\"image\": <base64>, \"task\": \"identify\" or \"ask\"}.")
    }
    let prompt: ProxyPrompt
    do {
      prompt = try prompts.prompt(for: body)
    } catch .tooLong(let limit) {
      return badRequest("prompt_too_long", "The question is over \(limit) characters.")
    } catch {
      return badRequest(
        "prompt_invalid",
        "The question may hold only visible text: no control, format or private-use characters.")
    }
    // Counted once the body is known to be usable, and refunded below if the upstream fails.
    let budgetDate = Date()
    let charges =
      budgets?.visionCharges(
        subject: claims.subject, address: budgetAddress(request, context)) ?? []
    // Recorded against replay last: a request refused for its bucket, its body, its question or
    // a budget takes no room in the replay cache (signed garbage could fill it otherwise).
    if let refusal = await chargeThenRecord(
      charges, on: budgetDate, verified, recorder: authenticator.verifier, context: context)
    {
      return refusal
    }
    if body.stream == true {
      return await streamedVision(
        prompt, task: body.task, image: body.image, charges: charges, budgetDate: budgetDate,
        context: context)
    }
    let upstreamStarted = ContinuousClock.now
    do {
      let reply: VisionResponse
      do {
        reply = try await upstream.complete(prompt, image: body.image).bounded(for: body.task)
        metrics.recordUpstream(outcome: "ok", duration: ContinuousClock.now - upstreamStarted)
      } catch {
        metrics.recordUpstream(outcome: error.code, duration: ContinuousClock.now - upstreamStarted)
        if error.isRefundable, let budgets, !charges.isEmpty,
          await !budgets.refund(charges, on: budgetDate)
        {
          context.logger.notice("Budget refund failed; the call stays counted")
        }
        throw error
      }
      let data = try JSONEncoder().encode(reply)
      return answer(ErrorResponse.json(status: 200, data: data), "ok")
    } catch let error as UpstreamError {
      let response = ErrorResponse.make(
        status: error.httpStatus, message: error.description, type: "upstream_error",
        code: error.code)
      return answer(response, error.code)
    } catch {
      let response = ErrorResponse.make(
        status: 500, message: "The reply could not be encoded.", type: "server_error",
        code: "internal_error")
      return answer(response, "internal_error")
    }
  }

  // MARK: Helpers

  /// The largest `/auth_token` body read: `{"subject": …, "nonce": …}` with a subject of at
  /// most 128 characters fits many times over.
  static let maximumAuthTokenBodyBytes = 4096

  /// How long an `/auth_token` body (at most ``maximumAuthTokenBodyBytes``, one packet) may take
  /// to arrive after its headers: 5 s, or the read timeout when that is shorter. Every path but
  /// `/vision` gets it (see ``bodyTimeout(_:)``).
  static func authTokenBodyTimeout(_ configuration: ProxyConfiguration) -> Duration {
    min(configuration.readTimeout, .seconds(5))
  }

  /// The body deadline for a request to `path` (as sent, without its query): the read timeout
  /// for `/vision`, whose body is up to ``ProxyConfiguration/maximumBodyBytes`` and whose slot
  /// was earned with a session; ``authTokenBodyTimeout(_:)`` for every other path, however
  /// spelled.
  static func bodyTimeout(_ configuration: ProxyConfiguration) -> @Sendable (Substring) -> Duration
  {
    let short = authTokenBodyTimeout(configuration)
    let long = configuration.readTimeout
    return { path in path == "/vision" ? long : short }
  }

  /// The `/auth_token` pool's size: an eighth of ``ProxyConfiguration/maximumInFlight`` (at
  /// least one), at most 4 from one address (or ``ProxyConfiguration/maximumInFlightPerAddress``
  /// when smaller). A slot is held only while the signature is checked and the session issued.
  static func authTokenPool(_ configuration: ProxyConfiguration) -> InFlightLimit {
    InFlightLimit(
      maximum: max(1, configuration.maximumInFlight / 8),
      maximumPerAddress: min(4, configuration.maximumInFlightPerAddress))
  }

  /// A subject for a session whose request named none: random, so that no two sessions share
  /// a daily quota by default.
  static func generatedSubject() -> String {
    "anon-" + (0..<12).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
  }

  /// Takes a token from each of `rateKeys`' buckets, checks what `validateHeaders` checks on
  /// the headers alone, then reads the body (at most `bodyLimit` bytes); fails with a ready
  /// 429, 401 or 413 response. A request that cannot verify is refused before its body is
  /// buffered.
  private func admit(
    _ request: Request, route: String, rateKeys: [String], bodyLimit: Int,
    validateHeaders: (SignedRequest) throws(RequestVerificationError) -> Void
  ) async -> Result<SignedRequest, ResponseError> {
    for key in rateKeys {
      if let refusal = await rateLimited(key, route: route) { return .failure(refusal) }
    }
    let head = Self.signedHead(request)
    if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit {
      return .failure(Self.tooLarge(bodyLimit))
    }
    do {
      try validateHeaders(head)
    } catch {
      return .failure(
        ResponseError(response: ErrorResponse.verification(error), outcome: error.code))
    }
    let bytes: ByteBuffer
    do {
      bytes = try await request.body.collect(upTo: bodyLimit)
    } catch {
      return .failure(Self.tooLarge(bodyLimit))
    }
    var signed = head
    signed.body = Data(bytes.readableBytesView)
    return .success(signed)
  }

  /// `request`'s method, path and signing headers, without its body.
  private static func signedHead(_ request: Request) -> SignedRequest {
    var headers: [String: String] = [:]
    for name in [DexCloudHeader.timestamp, DexCloudHeader.signature, DexCloudHeader.session] {
      if let field = HTTPField.Name(name), let value = request.headers[field] {
        headers[name] = value
      }
    }
    return SignedRequest(
      method: request.method.rawValue, path: request.head.path ?? "/", headers: headers,
      body: Data())
  }

  /// The ready 413 for a body over `limit` bytes.
  private static func tooLarge(_ limit: Int) -> ResponseError {
    ResponseError(
      response: ErrorResponse.make(
        status: 413, message: "The request body is over \(limit) bytes.",
        type: "invalid_request_error", code: "request_too_large"),
      outcome: "body_too_large")
  }

  /// The refusal for a `/vision` request that declares a body over ``maximumBodyBytes``, or
  /// whose session id does not verify (forged, expired, from a retired key) or whose signing
  /// headers are malformed or stale, checked on the headers alone before the request may take
  /// a slot or a token from a bucket (a forged id costs one HMAC, less than a shared bucket's
  /// round trip); `nil` to go on.
  private func sessionRefusal(_ request: Request) -> ResponseError? {
    if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
      return Self.tooLarge(maximumBodyBytes)
    }
    do {
      _ = try authenticator.validateSessionHeaders(Self.signedHead(request))
      return nil
    } catch {
      return ResponseError(response: ErrorResponse.verification(error), outcome: error.code)
    }
  }

  /// An `/auth_token` request with its body read: a token taken from its address's bucket, the
  /// signing headers checked for shape and freshness, then at most
  /// ``maximumAuthTokenBodyBytes`` read (the connection's body deadline,
  /// ``authTokenBodyTimeout(_:)``, closes a trickle), so that the request holds no slot while
  /// its body arrives.
  private func bufferedAuthToken(
    _ request: Request, context: ProxyRequestContext
  ) async -> Result<Request, ResponseError> {
    switch await admit(
      request, route: "/auth_token", rateKeys: [addressKey(request, context)],
      bodyLimit: min(maximumBodyBytes, Self.maximumAuthTokenBodyBytes),
      validateHeaders: { request throws(RequestVerificationError) in
        try authenticator.validateBootstrapHeaders(request)
      })
    {
    case .failure(let error):
      return .failure(error)
    case .success(let signed):
      var buffered = request
      buffered.body = RequestBody(buffer: ByteBuffer(bytes: signed.body))
      return .success(buffered)
    }
  }

  /// Takes a token from `key`'s bucket; a ready 429 (with `Retry-After`) when it is empty.
  private func rateLimited(_ key: String, route: String) async -> ResponseError? {
    guard case .limited(let seconds) = await acquire(key) else { return nil }
    metrics.recordRateLimitRefusal(route: route)
    var headers = HTTPFields()
    headers[.retryAfter] = String(seconds)
    let response = ErrorResponse.make(
      status: 429, message: "Too many requests; retry after \(seconds) s.",
      type: "rate_limit_error", code: "rate_limit_exceeded", headers: headers)
    return ResponseError(response: response, outcome: "rate_limited")
  }

  /// Takes `charges` from the budgets, then records `verified` against replay with `recorder`
  /// (giving the charges back when that fails): a request a budget refuses takes no room in the
  /// replay cache. The ready refusal, or `nil` to go on.
  private func chargeThenRecord(
    _ charges: [ProxyBudgets.Charge], on date: Date, _ verified: VerifiedSignature,
    recorder: RequestVerifier, context: ProxyRequestContext
  ) async -> Response? {
    if let budgets, let refusal = await spend(budgets, charges, on: date) {
      return answer(refusal)
    }
    do {
      try await recorder.record(verified)
    } catch {
      if let budgets, !charges.isEmpty, await !budgets.refund(charges, on: date) {
        context.logger.notice("Budget refund failed; the request stays counted")
      }
      return refuse(error)
    }
    return nil
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

  /// Runs `handler` if `pool` has room for one more request from `request`'s address that
  /// buffers at most `bytes` of body, else answers 503 `busy` with `Retry-After: 1` at once.
  private func admitted(
    _ request: Request, pool: InFlightLimit, bytes: Int = 0,
    context: ProxyRequestContext, _ handler: () async -> Response
  ) async -> Response {
    let address = budgetAddress(request, context)
    guard let entry = pool.enter(address: address, bytes: bytes) else {
      return busy()
    }
    // A streamed reply takes the slot over (``InFlightSlot``) and releases it when it ends.
    let slot = InFlightSlot { [pool] in pool.leave(entry) }
    defer { slot.handlerReturned() }
    return await InFlightSlot.$current.withValue(slot) { await handler() }
  }

  /// The ready 503 `busy` with `Retry-After: 1`.
  private func busy() -> Response {
    var headers = HTTPFields()
    headers[.retryAfter] = "1"
    let response = ErrorResponse.make(
      status: 503, message: "The proxy is busy; retry shortly.", type: "server_error",
      code: "busy", headers: headers)
    return answer(response, "busy")
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
  private func refuse(_ error: RequestVerificationError) -> Response {
    guard error == .replayCacheFull, sharedStore != nil else {
      return answer(ErrorResponse.verification(error), error.code)
    }
    var headers = HTTPFields()
    headers[.retryAfter] = "1"
    let response = ErrorResponse.make(
      status: 503, message: "The replay store is unavailable; retry later.",
      type: "server_error", code: ErrorResponse.replayStoreUnavailable, headers: headers)
    return answer(response, ErrorResponse.replayStoreUnavailable)
  }

  /// `response`, with `outcome` noted for the request log (``RequestLogMiddleware`` logs and
  /// counts every answer once; no route logs itself).
  func answer(_ response: Response, _ outcome: String) -> Response {
    RequestOutcome.note(outcome)
    return response
  }

  /// The ready refusal `error`, its outcome noted.
  private func answer(_ error: ResponseError) -> Response {
    answer(error.response, error.outcome)
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
  static let forwardedFor = HTTPField.Name("X-Forwarded-For")
}
