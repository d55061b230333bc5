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
    do {
      try await check(request, secrets: secrets)
    } catch {
      logger.notice(
        "Refused a signed request",
        metadata: ["method": "\(request.method.uppercased())", "reason": "\(error.code)"])
      throw error
    }
  }

  private func check(
    _ request: SignedRequest, secrets: [SigningSecret]
  ) async throws(RequestVerificationError) {
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

    let canonical = CanonicalRequest(
      method: request.method, path: request.path, timestamp: timestampText, body: request.body)
    // Check every candidate so the time taken does not reveal which one matched.
    var matched = false
    for secret in secrets {
      if RequestSigner(secret: secret).isValid(signatureBytes: provided, for: canonical) {
        matched = true
      }
    }
    guard matched else { throw .signatureMismatch }

    let expiry = Date(timeIntervalSince1970: TimeInterval(timestamp + window + 1))
    let fresh: Bool
    do {
      fresh = try await replayCache.insertIfAbsent(signatureText, expiresAt: expiry)
    } catch let error as RequestVerificationError {
      throw error
    } catch {
      throw .replayCacheFull
    }
    guard fresh else { throw .replayed }
  }

  /// Unix seconds: 1 to 12 ASCII digits (up to year 33658), nothing else.
  static func parseTimestamp(_ text: String) -> Int64? {
    guard (1...12).contains(text.utf8.count),
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Int64(text)
  }
}
