import Foundation

/// Splits a `text/event-stream` body into ``ServerSentEvent``s as its bytes arrive, in
/// whatever pieces they arrive.
///
/// Lines end with LF, CR LF or CR; comments (`:` lines) and fields other than `event` and
/// `data` are skipped. What one event may hold is bounded: a line longer than
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
    for byte in chunk {
      if byte == 0x0A, lastWasCR {
        lastWasCR = false
        continue
      }
      lastWasCR = byte == 0x0D
      if byte == 0x0A || byte == 0x0D {
        if let event = try endLine() { events.append(event) }
        continue
      }
      guard line.count < maximumLineBytes else {
        throw DexCloudError(
          kind: .payloadTooLarge, message: "An event-stream line is over \(maximumLineBytes) bytes."
        )
      }
      line.append(byte)
    }
    return events
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
