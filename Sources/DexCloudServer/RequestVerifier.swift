import DexCloud
import Foundation
import Logging

/// Checks a signed request on the server: headers present, timestamp inside the window,
/// signature recomputed and compared in constant time, then not seen before.
///
/// It is framework-free so any Swift backend can use it. Several secrets may be accepted at
/// once, which is how a rotated bootstrap key overlaps with its successor.
public struct RequestVerifier: Sendable {
  /// How far `x-timestamp` may be from the server clock, either way (default 300 s).
  public let allowedSkew: Duration
  /// Where accepted signatures are remembered.
  public let replayCache: any ReplayCache
  private let now: @Sendable () -> Date
  private let logger: Logger

  /// Creates a verifier.
  ///
  /// - Parameters:
  ///   - allowedSkew: the timestamp window, either side of `now` (default ±300 s).
  ///   - replayCache: the shared store of accepted signatures.
  ///   - now: the server clock (injectable for tests).
  ///   - logger: where refusals are logged (never with signatures or secrets).
  public init(
    allowedSkew: Duration = .seconds(300),
    replayCache: any ReplayCache = InMemoryReplayCache(),
    now: @escaping @Sendable () -> Date = { Date() },
    logger: Logger = Logger(label: "dexkit.cloud.verifier")
  ) {
    self.allowedSkew = allowedSkew
    self.replayCache = replayCache
    self.now = now
    self.logger = logger
  }

  /// Verifies `request` against any of `secrets`, then records it against replay.
  ///
  /// The checks run cheapest first and the replay cache is only touched once the signature is
  /// valid, so unauthenticated traffic cannot fill it.
  public func verify(
    _ request: SignedRequest, secrets: [SigningSecret]
  ) async throws(RequestVerificationError) {
    let verified = try verifySignature(of: request, secrets: secrets)
    try await record(verified)
  }

  /// Checks what needs no body, before a server reads one: both signing headers present, the
  /// timestamp well formed and inside the window, the signature well formed.
  ///
  /// A server calls it on the headers alone so that a request which cannot verify is refused
  /// before its body is buffered; ``verify(_:secrets:)`` repeats these checks.
  public func validateHeaders(of request: SignedRequest) throws(RequestVerificationError) {
    do {
      _ = try checkHeaders(request)
    } catch {
      logRefusal(method: request.method, error)
      throw error
    }
  }

  /// Checks the headers and the signature of `request` against any of `secrets` without
  /// recording it; pass the result to ``record(_:)`` to finish what ``verify(_:secrets:)`` does.
  ///
  /// Splitting the two lets a server apply a budget between them, so that a request it refuses
  /// takes no room in the replay cache.
  public func verifySignature(
    of request: SignedRequest, secrets: [SigningSecret]
  ) throws(RequestVerificationError) -> VerifiedSignature {
    do throws(RequestVerificationError) {
      let (timestamp, provided) = try checkHeaders(request)
      let canonical = CanonicalRequest(
        method: request.method, path: request.path, timestamp: request.timestamp ?? "",
        body: request.body)
      // Check every candidate so the time taken does not reveal which one matched.
      var matched = false
      for secret in secrets {
        if RequestSigner(secret: secret).isValid(signatureBytes: provided, for: canonical) {
          matched = true
        }
      }
      guard matched else { throw RequestVerificationError.signatureMismatch }
      let window = allowedSkew.components.seconds
      return VerifiedSignature(
        signature: request.signature ?? "", method: request.method,
        expiresAt: Date(timeIntervalSince1970: TimeInterval(timestamp + window + 1)))
    } catch {
      logRefusal(method: request.method, error)
      throw error
    }
  }

  /// Records a verified signature against replay: refused with
  /// ``RequestVerificationError/replayed`` if it was seen inside the window.
  public func record(_ verified: VerifiedSignature) async throws(RequestVerificationError) {
    let fresh: Bool
    do {
      fresh = try await replayCache.insertIfAbsent(
        verified.signature, expiresAt: verified.expiresAt)
    } catch {
      let failure = (error as? RequestVerificationError) ?? .replayCacheFull
      logRefusal(method: verified.method, failure)
      throw failure
    }
    guard fresh else {
      logRefusal(method: verified.method, .replayed)
      throw .replayed
    }
  }

  /// The parsed timestamp and signature bytes, once the checks that need no body pass.
  private func checkHeaders(
    _ request: SignedRequest
  ) throws(RequestVerificationError) -> (timestamp: Int64, signature: [UInt8]) {
    guard let timestampText = request.timestamp else {
      throw .missingHeader(DexCloudHeader.timestamp)
    }
    guard let signatureText = request.signature else {
      throw .missingHeader(DexCloudHeader.signature)
    }
    guard let timestamp = Self.parseTimestamp(timestampText) else { throw .malformedTimestamp }
    let current = now()
    let skew = timestamp - Int64(current.timeIntervalSince1970.rounded(.down))
    let window = allowedSkew.components.seconds
    guard abs(skew) <= window else { throw .timestampOutOfWindow(skewSeconds: skew) }
    guard signatureText.utf8.count == 64, let provided = Hex.decodeLowercase(signatureText)
    else { throw .malformedSignature }
    return (timestamp, provided)
  }

  private func logRefusal(method: String, _ error: RequestVerificationError) {
    logger.notice(
      "Refused a signed request",
      metadata: ["method": "\(method.uppercased())", "reason": "\(error.code)"])
  }

  /// Unix seconds: 1 to 12 ASCII digits (up to year 33658), nothing else.
  static func parseTimestamp(_ text: String) -> Int64? {
    guard (1...12).contains(text.utf8.count),
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Int64(text)
  }
}
