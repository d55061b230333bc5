import Foundation

/// Layers 1 and 4 of ``ScanResult/init(jsonString:)``: finds candidate objects in a reply,
/// unwraps wrappers, and decides between an entry and the most telling ``ScanResult/ParseError``.
struct ScanResultExtractor {
  private let reader = LenientJSONReader()
  /// Bytes of parsing work left; bounds the total work to a small multiple of the input size.
  private var budget = 0
  /// The most specific failure seen so far.
  private var failure: ScanResult.ParseError?
  /// How many candidate documents were read (for the tests of the work bound).
  private(set) var documentsRead = 0

  /// How deep wrappers (objects, arrays, strings holding JSON) are unwrapped.
  private static let maximumNesting = 6

  mutating func extract(from reply: String) throws(ScanResult.ParseError) -> ScanResult {
    let trimmed = reply.trimmingCharacters(in: Self.outerTrimmed)
    guard !trimmed.isEmpty else { throw .emptyReply }
    budget = reply.utf8.count * 4 + 65_536
    // The untrimmed reply is searched: a trailing newline after a cut-off number is what
    // shows that the number was complete.
    if let result = search(reply, nesting: 0) { return result }
    if let failure { throw failure }
    if let reason = Self.refusalReason(inProse: trimmed) { throw .refusal(reason) }
    throw .noJSON
  }

  private static let outerTrimmed = CharacterSet.whitespacesAndNewlines
    .union(CharacterSet(charactersIn: "\u{FEFF}\u{200B}"))

  // MARK: Candidates

  private mutating func search(_ text: String, nesting: Int) -> ScanResult? {
    let source = Self.containsHTMLCode(text) ? Self.strippingHTMLCode(text) : text
    let bytes = Array(source.utf8)
    let fenced = Self.fencedRegions(in: bytes)
    for region in fenced {
      if let result = scanCandidates(bytes, in: region, nesting: nesting) { return result }
    }
    if let result = scanCandidates(bytes, in: 0..<bytes.count, nesting: nesting) { return result }
    // The whole reply may be one escaped JSON string: "{\"commonName\": …}".
    if nesting < Self.maximumNesting, let first = bytes.firstIndex(where: { $0 > 0x20 }),
      bytes[first] == UInt8(ascii: "\"") || bytes[first] == UInt8(ascii: "'"),
      let document = try? reader.document(from: bytes, at: first),
      case .string(let inner) = document.value, inner.contains("{")
    {
      return search(inner, nesting: nesting + 1)
    }
    return nil
  }

  private mutating func scanCandidates(
    _ bytes: [UInt8], in region: Range<Int>, nesting: Int
  ) -> ScanResult? {
    var cursor = region.lowerBound
    while cursor < region.upperBound, budget > 0 {
      guard let start = bytes[cursor..<region.upperBound].firstIndex(of: UInt8(ascii: "{")) else {
        return nil
      }
      documentsRead += 1
      do {
        let document = try reader.document(from: bytes, at: start)
        // What reading cost: a string read to the end and ended earlier read past endOffset.
        budget -= max(document.scannedEnd, document.endOffset) - start
        let value = Self.settlingCut(in: document.value, at: document.cutPath)
        if let result = evaluate(value, nesting: nesting) { return result }
        cursor = document.isTruncated ? region.upperBound : max(document.endOffset, start + 1)
      } catch {
        budget -= max(error.offset - start, 1)
        note(.malformedJSON)
        cursor = start + 1
      }
    }
    return nil
  }

  // MARK: Evaluating a candidate

  private mutating func evaluate(_ value: JSONValue, nesting: Int) -> ScanResult? {
    switch value {
    case .object(let members):
      return evaluate(object: members, nesting: nesting)
    case .array(let elements):
      guard nesting < Self.maximumNesting else { return nil }
      for element in elements.prefix(4) {
        if let result = evaluate(element, nesting: nesting + 1) { return result }
      }
      return nil
    case .string(let text):
      guard nesting < Self.maximumNesting, text.contains("{") else { return nil }
      return search(text, nesting: nesting + 1)
    case .null, .bool, .number:
      return nil
    }
  }

  private mutating func evaluate(object members: [String: JSONValue], nesting: Int) -> ScanResult? {
    guard !members.isEmpty else {
      note(.emptyObject)
      return nil
    }
    let fields = ScanResultFields(members)
    if let error = fields.value("error"), error != .null, !fields.hasNameKey {
      note(.apiError(Self.apiErrorMessage(error)))
      return nil
    }
    if let refusal = fields.value("refusal"), refusal != .null, !fields.hasNameKey {
      note(.refusal(Self.excerpt(ScanResultFields.text(of: refusal) ?? "")))
      return nil
    }
    if fields.hasNameKey {
      let result = ScanResult.decodeFields(from: members)
      if Self.identifiesSomething(result) { return result }
      note(.noIdentification)
      return nil
    }
    if fields.hasEntryKey {
      note(.noIdentification)  // entry fields, but no name at all
    }
    guard nesting < Self.maximumNesting else { return nil }
    // A chat-completion body: choices[0].message.content.
    if let first = fields.value("choices")?.arrayElements?.first,
      let content = first["message"]?["content"] ?? first["text"]
    {
      return evaluate(content, nesting: nesting + 1)
    }
    if members.count == 1, let only = members.values.first {
      return evaluate(only, nesting: nesting + 1)
    }
    for key in Self.wrapperKeys {
      if let wrapped = fields.value(key), let result = evaluate(wrapped, nesting: nesting + 1) {
        return result
      }
    }
    return nil
  }

  private static let wrapperKeys = [
    "result", "data", "entry", "dexentry", "response", "output", "answer", "json", "content",
    "identification", "scan", "scanresult", "item", "message",
  ]

  /// The spec's rule, read for what it is for ("valid JSON that contains no real
  /// identification" is refused, never saved as a bogus "Unknown"): a result is rejected when its
  /// name has no letter or digit (empty, "???", invisible characters), or when it is a
  /// placeholder ("Unknown" in any case, "N/A", "null", "Unidentified") and its summary is empty.
  /// A placeholder that explains itself ("The photo is too dark to identify the subject.") is
  /// kept, so the user sees the reason.
  static func identifiesSomething(_ result: ScanResult) -> Bool {
    identifiesSomething(commonName: result.commonName, summary: result.summary)
  }

  /// The same rule on a name and a summary: what the store applies to every entry it saves or
  /// imports, so that no path (an import, an edit) keeps a nameless or bare "Unknown" entry.
  static func identifiesSomething(commonName: String, summary: String) -> Bool {
    let name = commonName.trimmingCharacters(in: .whitespacesAndNewlines)
    // A name with no letter or digit ("???", invisible characters) names nothing.
    guard
      name.unicodeScalars.contains(where: {
        $0.properties.isAlphabetic || $0.properties.numericType != nil
      })
    else { return false }
    // A placeholder ("Unknown", "N/A", "null", "Unidentified") names something only with a
    // summary that says why ("The photo is too dark to identify the subject.").
    return
      !(DexCategory.isPlaceholder(name)
      && summary.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
  }

  // MARK: Truncation

  /// The value with the scalar a token limit cut off settled: a cut summary is kept, trimmed
  /// and marked with "…" (the user keeps the text the model sent); any other cut field is
  /// dropped, since half a name, a category or a number would be a wrong value.
  static func settlingCut(in value: JSONValue, at path: [LenientJSONReader.PathStep]?) -> JSONValue
  {
    guard let path, let leaf = path.last else { return value }
    var keepsText = false
    if case .key(let key) = leaf {
      keepsText = ScanResultFields.summaryKeys.contains(ScanResultFields.normalizedKey(key))
    }
    return replacing(in: value, at: path[...]) { cut in
      guard keepsText, case .string(let text) = cut else { return nil }
      let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      return trimmed.isEmpty ? nil : .string(trimmed + "…")
    }
  }

  /// `value` with the value at `path` replaced by `change`'s result, or removed when `nil`.
  private static func replacing(
    in value: JSONValue, at path: ArraySlice<LenientJSONReader.PathStep>,
    _ change: (JSONValue) -> JSONValue?
  ) -> JSONValue {
    guard let step = path.first else { return value }
    let rest = path.dropFirst()
    switch (value, step) {
    case (.object(var members), .key(let key)):
      guard let member = members[key] else { return value }
      members[key] = rest.isEmpty ? change(member) : replacing(in: member, at: rest, change)
      return .object(members)
    case (.array(var elements), .index(let index)) where elements.indices.contains(index):
      if !rest.isEmpty {
        elements[index] = replacing(in: elements[index], at: rest, change)
      } else if let changed = change(elements[index]) {
        elements[index] = changed
      } else {
        elements.remove(at: index)
      }
      return .array(elements)
    default:
      return value
    }
  }

  private mutating func note(_ candidate: ScanResult.ParseError) {
    if let current = failure, Self.priority(current) >= Self.priority(candidate) { return }
    failure = candidate
  }

  private static func priority(_ error: ScanResult.ParseError) -> Int {
    switch error {
    case .apiError: 6
    case .refusal: 5
    case .noIdentification: 4
    case .emptyObject: 3
    case .malformedJSON: 2
    case .noJSON: 1
    case .emptyReply: 0
    }
  }

  // MARK: Messages

  private static func apiErrorMessage(_ error: JSONValue) -> String {
    if let message = error["message"].flatMap(ScanResultFields.text(of:)) {
      return excerpt(message)
    }
    return excerpt(ScanResultFields.text(of: error) ?? "")
  }

  /// A single-line excerpt of at most 120 characters, so that errors never carry a whole reply.
  static func excerpt(_ text: String) -> String {
    let line = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return line.count > 120 ? String(line.prefix(119)) + "…" : line
  }

  /// The prose refusal, if the reply reads like one ("I'm sorry, I can't identify…").
  static func refusalReason(inProse text: String) -> String? {
    let head = String(text.prefix(600)).lowercased().replacingOccurrences(of: "’", with: "'")
    return refusalMarkers.contains(where: head.contains) ? excerpt(String(text.prefix(600))) : nil
  }

  private static let refusalMarkers = [
    "i'm sorry", "i am sorry", "sorry, ", "i can't", "i cannot", "i can not", "i'm unable",
    "i am unable", "unable to identify", "unable to help", "i'm not able", "i am not able",
    "i won't", "i will not", "can't assist", "cannot assist", "can't help", "cannot help",
    "not able to identify", "as an ai",
  ]

  // MARK: Fences and HTML

  /// The contents of markdown code fences (``` or ~~~, any language tag); an unclosed fence
  /// (a truncated reply) runs to the end.
  static func fencedRegions(in bytes: [UInt8]) -> [Range<Int>] {
    var regions: [Range<Int>] = []
    var index = 0
    var openContentStart: Int? = nil
    while index + 2 < bytes.count {
      let marker = bytes[index]
      let isFence =
        (marker == UInt8(ascii: "`") || marker == UInt8(ascii: "~"))
        && bytes[index + 1] == marker && bytes[index + 2] == marker
      guard isFence else {
        index += 1
        continue
      }
      if let start = openContentStart {
        regions.append(start..<index)
        openContentStart = nil
        index += 3
      } else {
        // Content starts after the info string (language tag) on the opening line.
        var lineEnd = index + 3
        while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != UInt8(ascii: "{") {
          lineEnd += 1
        }
        openContentStart = lineEnd
        index = lineEnd
      }
    }
    if let start = openContentStart, start < bytes.count { regions.append(start..<bytes.count) }
    return regions
  }

  static func containsHTMLCode(_ text: String) -> Bool {
    text.range(of: "<pre", options: .caseInsensitive) != nil
      || text.range(of: "<code", options: .caseInsensitive) != nil
  }

  /// Removes `<pre>`/`<code>` tags and decodes the entities HTML escapes JSON with.
  static func strippingHTMLCode(_ text: String) -> String {
    var result = text.replacingOccurrences(
      of: "</?(pre|code)\\b[^<>]{0,256}>", with: "",
      options: [.regularExpression, .caseInsensitive])
    for (entity, character) in [
      ("&quot;", "\""), ("&#34;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&lt;", "<"),
      ("&gt;", ">"), ("&nbsp;", " "), ("&amp;", "&"),
    ] {
      result = result.replacingOccurrences(of: entity, with: character)
    }
    return result
  }
}
