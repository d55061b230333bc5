import Foundation
import Logging

/// Collects every rendered log line (message plus metadata) so tests can assert that no secret
/// reaches a log. Shared by DexCloudTests and DexProxyTests.
public final class LogCapture: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [String] = []

  /// Creates an empty capture.
  public init() {}

  /// Every line logged so far, oldest first.
  public var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }

  /// Records one rendered line.
  public func append(_ line: String) {
    lock.lock()
    storage.append(line)
    lock.unlock()
  }

  /// A logger at `.trace` that writes into this capture.
  public func logger(_ label: String = "test") -> Logger {
    var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
    logger.logLevel = .trace
    return logger
  }
}

/// The swift-log handler behind ``LogCapture/logger(_:)``: renders each event with its metadata.
public struct CapturingLogHandler: LogHandler {
  let label: String
  let capture: LogCapture
  /// Handler-level metadata, merged under each event's own.
  public var metadata: Logger.Metadata = [:]
  /// Everything down to `.trace` is captured by default.
  public var logLevel: Logger.Level = .trace

  /// Creates a handler writing into `capture`.
  public init(label: String, capture: LogCapture) {
    self.label = label
    self.capture = capture
  }

  /// Handler-level metadata by key.
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  /// Renders and records one event.
  public func log(event: LogEvent) {
    var all = metadata
    if let extra = event.metadata { all.merge(extra) { $1 } }
    let rendered = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      .joined(separator: " ")
    capture.append("[\(event.level)] \(label): \(event.message) \(rendered)")
  }
}

extension NSLock {
  /// Runs `body` holding the lock (`withLock` needs macOS 14 on Apple platforms).
  public func sync<T>(_ body: () throws -> T) rethrows -> T {
    lock()
    defer { unlock() }
    return try body()
  }
}
