/// A streamed identification that stopped before its end (the connection dropped, the
/// deadline passed, the stream was cut): the fields that had arrived, and why it stopped.
public struct InterruptedScanError: Error, Sendable, CustomStringConvertible {
  /// The fields known when the stream stopped.
  public var partial: PartialScanResult
  /// What stopped the stream (a transport error, for example).
  public var reason: any Error & Sendable

  /// Creates the error.
  public init(partial: PartialScanResult, reason: any Error & Sendable) {
    self.partial = partial
    self.reason = reason
  }

  /// What stopped the stream, and how many fields had arrived.
  public var description: String {
    "The identification stopped after \(partial.knownFieldCount) of 7 fields: \(reason)"
  }
}
