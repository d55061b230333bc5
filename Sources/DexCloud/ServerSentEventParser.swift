import Foundation

/// Splits a `text/event-stream` body into ``ServerSentEvent``s as its bytes arrive, in
/// whatever pieces they arrive.
///
/// Lines end with LF, CR LF or CR; a byte-order mark at the very start is skipped, and comments
/// (`:` lines) and fields other than `event` and `data` are skipped too, as the WHATWG
/// specification reads a stream. What one event may hold is bounded: a line longer than
/// ``maximumLineBytes`` or an event's data longer than ``maximumEventBytes`` fails with
/// ``DexCloudError/Kind/payloadTooLarge``, so a stream that never ends a line cannot make the
/// reader hold more.
public struct ServerSentEventParser: Sendable {
  /// The longest line accepted.
  public let maximumLineBytes: Int
  /// The longest event data accepted.
  public let maximumEventBytes: Int

  private var line: [UInt8] = []
  private var lastWasCR = false
  private var event: String?
  private var data: [UInt8] = []
  private var hasData = false
  /// How many bytes of a leading byte-order mark were seen; `nil` once the stream's first
  /// bytes are known not to be, or to have been, one.
  private var byteOrderMarkSeen: Int? = 0
  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// Creates a parser with limits (64 KiB lines and events by default).
  public init(maximumLineBytes: Int = 64 << 10, maximumEventBytes: Int = 64 << 10) {
    self.maximumLineBytes = max(16, maximumLineBytes)
    self.maximumEventBytes = max(16, maximumEventBytes)
  }

  /// Reads `chunk` and returns the events it completed, in order.
  ///
  /// - Throws: ``DexCloudError`` of kind ``DexCloudError/Kind/payloadTooLarge`` past a limit.
  public mutating func consume(
    _ chunk: some Sequence<UInt8>
  ) throws(DexCloudError)
    -> [ServerSentEvent]
  {
    var events: [ServerSentEvent] = []
    do {
      try consume(chunk) { events.append($0) }
    } catch let error as DexCloudError {
      throw error
    } catch {
      throw DexCloudError(kind: .decoding, message: "The event stream is not readable.")
    }
    return events
  }

  /// Reads `chunk`, handing each event to `handle` as soon as it is complete, so that the
  /// events before a failing line still reach it.
  mutating func consume(
    _ chunk: some Sequence<UInt8>, each handle: (ServerSentEvent) throws -> Void
  ) throws {
    for byte in chunk {
      if let seen = byteOrderMarkSeen {
        if byte == Self.byteOrderMark[seen] {
          byteOrderMarkSeen = seen + 1 < Self.byteOrderMark.count ? seen + 1 : nil
          continue
        }
        // Not a byte-order mark after all: what looked like its start is text.
        byteOrderMarkSeen = nil
        for earlier in Self.byteOrderMark[..<seen] {
          if let event = try read(earlier) { try handle(event) }
        }
      }
      if let event = try read(byte) { try handle(event) }
    }
  }

  /// Reads one byte; the event it completes, if any.
  private mutating func read(_ byte: UInt8) throws(DexCloudError) -> ServerSentEvent? {
    if byte == 0x0A, lastWasCR {
      lastWasCR = false
      return nil
    }
    lastWasCR = byte == 0x0D
    if byte == 0x0A || byte == 0x0D { return try endLine() }
    guard line.count < maximumLineBytes else {
      throw DexCloudError(
        kind: .payloadTooLarge, message: "An event-stream line is over \(maximumLineBytes) bytes."
      )
    }
    line.append(byte)
    return nil
  }

  private mutating func endLine() throws(DexCloudError) -> ServerSentEvent? {
    defer { line.removeAll(keepingCapacity: true) }
    if line.isEmpty {
      defer {
        event = nil
        data.removeAll(keepingCapacity: true)
        hasData = false
      }
      guard hasData else { return nil }
      return ServerSentEvent(event: event, data: String(decoding: data, as: UTF8.self))
    }
    let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
    let field = line[..<colon]
    var value = line[colon...].dropFirst()
    if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
    switch String(decoding: field, as: UTF8.self) {
    case "event":
      event = String(decoding: value, as: UTF8.self)
    case "data":
      guard data.count + value.count + 1 <= maximumEventBytes else {
        throw DexCloudError(
          kind: .payloadTooLarge, message: "An event is over \(maximumEventBytes) bytes.")
      }
      if hasData { data.append(0x0A) }
      data.append(contentsOf: value)
      hasData = true
    default:
      break
    }
    return nil
  }
}
