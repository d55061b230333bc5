import Foundation

/// One Server-Sent Event (`text/event-stream`): the streamed `/vision` reply's unit, and the
/// upstream's (OpenAI's `stream: true` chat completions) too.
///
/// On the wire an event is `event: <name>` (optional) and one `data:` line per line of its
/// data, ended by a blank line. The `/vision` events are described in <doc:RequestSigning>.
public struct ServerSentEvent: Sendable, Equatable {
  /// The event's name; `nil` for the default `message` event.
  public var event: String?
  /// The event's data (its `data:` lines joined by line breaks).
  public var data: String

  /// Creates an event.
  public init(event: String? = nil, data: String) {
    self.event = event
    self.data = data
  }

  /// The event as it is written on the wire, blank line included. Each line of ``data`` (ended
  /// by LF, CR LF or CR, as a reader splits them) becomes a `data:` line, so the reader gets
  /// ``data`` back with its line ends as LF; line breaks in ``event`` are left out, since no
  /// name can hold one, so that no text written here can start another field or event.
  public var encoded: Data {
    var text = ""
    if let event {
      text += "event: \(event.filter { !["\n", "\r", "\r\n"].contains($0) })\n"
    }
    let lineEnds: Set<Character> = ["\n", "\r", "\r\n"]
    for line in data.split(omittingEmptySubsequences: false, whereSeparator: lineEnds.contains) {
      text += "data: \(line)\n"
    }
    return Data((text + "\n").utf8)
  }

  /// An event whose data is `value` encoded as JSON.
  public static func json(_ event: String, _ value: some Encodable) throws -> ServerSentEvent {
    ServerSentEvent(
      event: event, data: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
  }
}
