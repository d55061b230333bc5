import Foundation

/// Reads a model's identification reply as it streams in, yielding a ``PartialScanResult`` as
/// each field completes, and at the end exactly the ``ScanResult`` that
/// ``ScanResult/init(jsonString:)`` gives for the whole text.
///
/// Chunks are bytes (a chunk may end inside a UTF-8 character). The parser follows the first
/// `{` of the reply at the byte level (strings and escapes, nesting) and hands each member of
/// that object to ``LenientJSONReader`` once it is complete, so every byte is looked at a
/// bounded number of times: the work is linear in the reply, never a re-parse of the prefix per
/// chunk. Partial results only grow: a field, once set, keeps its value (a later spelling of
/// the same field does not replace it). Members past ``maximumMembers`` and bytes past
/// ``maximumScannedBytes`` give no more partial results; ``finish()`` still reads the whole text.
///
/// ```swift
/// var parser = IncrementalScanParser()
/// for try await chunk in reply {
///   if let partial = parser.consume(chunk) { show(partial.commonName) }
/// }
/// let result = try parser.finish()
/// ```
public struct IncrementalScanParser: Sendable {
  /// How many members of the object are read for partial results.
  public static let maximumMembers = 64
  /// How many bytes of the reply are followed for partial results (1 MiB).
  public static let maximumScannedBytes = 1 << 20

  /// The reply so far.
  private var bytes: [UInt8] = []
  /// The fields known so far.
  public private(set) var partial = PartialScanResult()
  private var members: [String: JSONValue] = [:]
  private var memberCount = 0
  private var position = 0
  private var state = State.beforeObject
  private var depth = 0
  private var quote: UInt8?
  private var escaped = false
  private var memberStart = 0
  /// The last byte outside a string that was not white space.
  private var lastSignificant: UInt8 = 0

  private enum State { case beforeObject, inObject, done }

  /// Creates a parser for one reply.
  public init() {}

  /// The reply's bytes received so far.
  public var receivedByteCount: Int { bytes.count }

  /// Appends `chunk` and returns the partial result when it grew, `nil` when no field
  /// completed.
  public mutating func consume(_ chunk: some Sequence<UInt8>) -> PartialScanResult? {
    bytes.append(contentsOf: chunk)
    let before = partial
    scan()
    return partial == before ? nil : partial
  }

  /// Appends the UTF-8 bytes of `text`; see ``consume(_:)``.
  public mutating func consume(text: String) -> PartialScanResult? {
    consume(text.utf8)
  }

  /// The whole reply parsed as ``ScanResult/init(jsonString:)`` parses it: the final result.
  ///
  /// - Throws: ``ScanResult/ParseError`` when the reply holds no usable identification.
  public func finish() throws(ScanResult.ParseError) -> ScanResult {
    try ScanResult(jsonString: String(decoding: bytes, as: UTF8.self))
  }

  /// The error for a reply that stopped before its end: the fields known so far and why.
  public func interrupted(by reason: any Error & Sendable) -> InterruptedScanError {
    InterruptedScanError(partial: partial, reason: reason)
  }

  // MARK: Scanning

  private mutating func scan() {
    let end = min(bytes.count, Self.maximumScannedBytes)
    while position < end, state != .done {
      let byte = bytes[position]
      switch state {
      case .beforeObject:
        if byte == UInt8(ascii: "{") {
          state = .inObject
          depth = 1
          memberStart = position + 1
          lastSignificant = byte
        }
      case .inObject:
        step(byte)
      case .done:
        break
      }
      position += 1
    }
  }

  private mutating func step(_ byte: UInt8) {
    if let open = quote {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == open {
        quote = nil
        lastSignificant = byte
      }
      return
    }
    switch byte {
    case UInt8(ascii: "\""):
      quote = byte
    case UInt8(ascii: "'"):
      // An apostrophe opens a string only where a key or a value starts (`it's` in a bare
      // word does not).
      if Self.valueStarters.contains(lastSignificant) { quote = byte }
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      depth += 1
    case UInt8(ascii: "}"), UInt8(ascii: "]"):
      depth -= 1
      if depth == 0 {
        completeMember(upTo: position)
        // An object that gave no field (`{"thinking": …}`, prose in braces) is not the entry:
        // look for the next one, as the whole-text parse does.
        if partial.isEmpty {
          members = [:]
          state = .beforeObject
        } else {
          state = .done
        }
      }
    case UInt8(ascii: ","):
      if depth == 1 {
        completeMember(upTo: position)
        memberStart = position + 1
      }
    default:
      break
    }
    if byte > 0x20 { lastSignificant = byte }
  }

  private static let valueStarters: Set<UInt8> = [
    UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ","), UInt8(ascii: ":"),
  ]

  /// Reads the member in `memberStart..<end` and folds it into ``partial``.
  private mutating func completeMember(upTo end: Int) {
    guard memberCount < Self.maximumMembers, memberStart < end else { return }
    memberCount += 1
    var text: [UInt8] = [UInt8(ascii: "{")]
    text.append(contentsOf: bytes[memberStart..<end])
    text.append(UInt8(ascii: "}"))
    guard let document = try? LenientJSONReader().document(from: text, at: 0),
      case .object(let read) = document.value
    else { return }
    for (key, value) in read where members[key] == nil { members[key] = value }
    update()
  }

  /// Sets the fields the members now give, leaving the fields already set as they are.
  private mutating func update() {
    let fields = ScanResultFields(members)
    let result = ScanResult.decodeFields(from: members)
    func has(_ keys: [String]) -> Bool { keys.contains { fields.value($0) != nil } }
    if partial.commonName == nil, !result.commonName.isEmpty {
      partial.commonName = result.commonName
    }
    if partial.category == nil, !result.category.isEmpty { partial.category = result.category }
    if partial.scientificName == nil, has(ScanResultFields.scientificNameKeys) {
      partial.scientificName = result.scientificName
    }
    if partial.summary == nil, !result.summary.isEmpty { partial.summary = result.summary }
    if partial.facts == nil, has(ScanResultFields.factsKeys) { partial.facts = result.facts }
    if partial.rarity == nil, has(ScanResultFields.rarityKeys) { partial.rarity = result.rarity }
    if partial.confidence == nil, has(ScanResultFields.confidenceKeys) {
      partial.confidence = result.confidence
    }
  }
}
