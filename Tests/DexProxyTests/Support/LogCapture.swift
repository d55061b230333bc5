import Foundation
import Logging

/// Collects every rendered log line (message plus metadata) so tests can check that no secret
/// reaches the proxy's logs.
final class LogCapture: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [String] = []

  var lines: [String] { lock.sync { storage } }

  func append(_ line: String) { lock.sync { storage.append(line) } }

  /// A logger at `.trace` that writes into this capture.
  func logger(_ label: String) -> Logger {
    var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
    logger.logLevel = .trace
    return logger
  }
}

struct CapturingLogHandler: LogHandler {
  let label: String
  let capture: LogCapture
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var all = metadata
    if let extra = event.metadata { all.merge(extra) { $1 } }
    let rendered = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      .joined(separator: " ")
    capture.append("[\(event.level)] \(label): \(event.message) \(rendered)")
  }
}

extension NSLock {
  func sync<T>(_ body: () throws -> T) rethrows -> T {
    lock()
    defer { unlock() }
    return try body()
  }
}
