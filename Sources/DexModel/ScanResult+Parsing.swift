import Foundation

extension ScanResult {
  /// Parses a model's reply into a result, surviving the ways models fail to follow the prompt.
  ///
  /// The reply is read in layers:
  /// 1. **Candidates.** A byte order mark, markdown fences (any language tag, any case) and HTML
  ///    `<pre>`/`<code>` wrappers are looked through; every balanced `{…}` object is a
  ///    candidate, tried in order (fenced blocks first) until one yields an entry, so prose like
  ///    "I looked {carefully}" or a leading `{"thinking": …}` object does not hide the answer.
  ///    An entry wrapped in a one-key object (`{"result": {…}}`), a one-element array, a chat
  ///    completion (`choices[0].message.content`) or an escaped JSON string is unwrapped.
  /// 2. **Lenient JSON** with ``LenientJSONReader``: trailing commas, single and typographic
  ///    quotes, unescaped quotes inside strings, missing closing quotes, values and commas,
  ///    `...` placeholders, unquoted keys, comments, Python literals and truncation. A summary
  ///    the token limit cut off is kept and ends with "…"; any other field cut off is dropped.
  /// 3. **Tolerant fields**: `snake_case` keys, confidence as a number, numeric string, `"87%"`
  ///    or a 0–100 value (clamped to `0...1`), facts as an array or one string, rarity
  ///    normalized to ``DexRarity``, names trimmed, nulls and wrong types replaced by defaults.
  /// 4. **Rejection**: an empty name, "Unknown" with an empty summary, refusals, API error
  ///    objects and empty objects throw a ``ParseError`` saying which. An "Unknown" with a
  ///    summary (the reason the subject could not be identified) is a result.
  ///
  /// Any input is safe to pass: it never crashes, recursion is bounded and the work is linear
  /// in the input's length.
  ///
  /// - Throws: ``ParseError``.
  public init(jsonString: String) throws(ParseError) {
    var extractor = ScanResultExtractor()
    self = try extractor.extract(from: jsonString)
  }

  /// Picks the fields out of a JSON object tolerantly; never fails.
  ///
  /// Use it when you already hold a decoded object (for example from your own transport); it
  /// applies layer 3 of ``init(jsonString:)`` but no rejection.
  public init(fields members: [String: JSONValue]) {
    self = ScanResult.decodeFields(from: members)
  }

  static func decodeFields(from members: [String: JSONValue]) -> ScanResult {
    let fields = ScanResultFields(members)
    let limits = ScanResultFields.Limits.self
    return ScanResult(
      commonName: limits.cut(
        fields.text(for: ScanResultFields.commonNameKeys), to: limits.nameCharacters),
      category: limits.cut(
        fields.text(for: ScanResultFields.categoryKeys), to: limits.categoryCharacters),
      scientificName: limits.cut(
        fields.text(for: ScanResultFields.scientificNameKeys), to: limits.nameCharacters),
      summary: limits.cut(
        fields.text(for: ScanResultFields.summaryKeys), to: limits.summaryCharacters),
      facts: fields.facts().prefix(limits.factCount).map {
        limits.cut($0, to: limits.factCharacters)
      },
      rarity: fields.rarity(),
      confidence: fields.confidence()
    )
  }
}

extension ScanResult {
  /// `value` read as the tolerant parser reads a confidence: above 1 a percentage, clamped to
  /// `0...1`, 0 when not finite (for entries that arrive typed, from a host's own service).
  package static func unitConfidence(_ value: Double) -> Double {
    ScanResultFields.unitConfidence(value, isPercent: false)
  }

  /// Whether the result names something: the rejection rule of ``init(jsonString:)``'s layer 4,
  /// for results that arrive already decoded (the proxy's typed `entry`).
  package var identifiesSomething: Bool {
    ScanResultExtractor.identifiesSomething(self)
  }
}
