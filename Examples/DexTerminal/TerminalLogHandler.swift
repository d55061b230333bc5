import Logging

/// A log handler for a terminal: every message and metadata value passes through
/// ``TerminalText/safe(_:keepingNewlines:)`` before the handler it wraps writes it.
///
/// Log lines carry file names, folder paths and error texts that whoever named the file or wrote
/// the reply chose; written to standard error as they are, an escape sequence in one could clear
/// the screen or retitle the window, like one in an entry printed to standard output.
public struct TerminalLogHandler: LogHandler {
  /// The handler that writes the cleaned lines (`StreamLogHandler.standardError` in the apps).
  public var wrapped: any LogHandler

  /// Wraps `handler`.
  public init(wrapping handler: any LogHandler) {
    self.wrapped = handler
  }

  /// The wrapped handler's level.
  public var logLevel: Logger.Level {
    get { wrapped.logLevel }
    set { wrapped.logLevel = newValue }
  }

  /// The wrapped handler's metadata (cleaned when a line is written).
  public var metadata: Logger.Metadata {
    get { wrapped.metadata }
    set { wrapped.metadata = newValue }
  }

  /// One value of the wrapped handler's metadata.
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { wrapped[metadataKey: key] }
    set { wrapped[metadataKey: key] = newValue }
  }

  /// The wrapped handler's metadata provider, whose values are cleaned like the rest.
  public var metadataProvider: Logger.MetadataProvider? {
    get { wrapped.metadataProvider }
    set { wrapped.metadataProvider = newValue }
  }

  /// Writes the event through the wrapped handler with its message, the provider's and the
  /// event's metadata, its error (as `error.message` and `error.type`, as `StreamLogHandler`
  /// writes it) and the handler's own metadata cleaned. Line breaks in the message become
  /// spaces, so that a file name cannot start a line that looks like another entry.
  public func log(event: LogEvent) {
    var event = event
    event.message = "\(TerminalText.safe(event.message.description))"
    var metadata = wrapped.metadataProvider?.get() ?? [:]
    if let explicit = event.metadata { metadata.merge(explicit) { $1 } }
    if let error = event.error {
      event.error = nil
      metadata["error.message"] = metadata["error.message"] ?? .string("\(error)")
      metadata["error.type"] =
        metadata["error.type"] ?? .string(String(reflecting: type(of: error)))
    }
    event.metadata = metadata.isEmpty ? nil : Self.safe(metadata)
    var inner = wrapped
    if inner.metadataProvider != nil { inner.metadataProvider = nil }  // applied above
    inner.metadata = Self.safe(inner.metadata)
    inner.log(event: event)
  }

  /// `metadata` with every key and value cleaned.
  static func safe(_ metadata: Logger.Metadata) -> Logger.Metadata {
    Dictionary(
      metadata.map { (TerminalText.safe($0.key), safe($0.value)) },
      uniquingKeysWith: { first, _ in first })
  }

  static func safe(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
    switch value {
    case .string(let text): .string(TerminalText.safe(text))
    case .stringConvertible(let convertible): .string(TerminalText.safe(convertible.description))
    case .array(let values): .array(values.map(safe))
    case .dictionary(let dictionary): .dictionary(safe(dictionary))
    }
  }
}
