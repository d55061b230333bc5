import DexCloud
import Foundation

/// Remembers accepted signatures until they can no longer be replayed.
///
/// It is a protocol so that several proxy instances can share one store (Redis `SET NX EX`,
/// a database table); ``InMemoryReplayCache`` is the single-process default.
public protocol ReplayCache: Sendable {
  /// Records `signature` until `expiresAt` and reports whether it was new.
  ///
  /// - Returns: `true` if the signature was not present (the request is fresh), `false` if it
  ///   was already recorded (a replay).
  /// - Throws: ``RequestVerificationError/replayCacheFull`` when the store cannot record it;
  ///   the verifier then refuses the request (fail closed).
  func insertIfAbsent(_ signature: String, expiresAt: Date) async throws -> Bool
}
