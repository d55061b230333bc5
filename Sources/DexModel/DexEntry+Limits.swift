extension DexEntry {
  /// The entry with every text field cut to the lengths a parsed reply is cut to (see
  /// `ScanResultFields.Limits`; the rarity and the local guess's label like a category and a
  /// name, the notes and the recognized text to 100 000 characters each, far above what a person
  /// writes or a photo shows) and its confidence
  /// clamped to 0...1 (0 when not finite): what an import stores, so that an archive (crafted,
  /// or from a version that stored anything) can neither carry megabytes into every list and
  /// page nor a confidence that breaks a display.
  package func bounded() -> DexEntry {
    let limits = ScanResultFields.Limits.self
    var entry = self
    entry.commonName = limits.cut(commonName, to: limits.nameCharacters)
    entry.categoryRaw = limits.cut(categoryRaw, to: limits.categoryCharacters)
    entry.scientificName = limits.cut(scientificName, to: limits.nameCharacters)
    entry.summary = limits.cut(summary, to: limits.summaryCharacters)
    entry.facts = facts.prefix(limits.factCount).map { limits.cut($0, to: limits.factCharacters) }
    entry.rarity = limits.cut(rarity, to: limits.categoryCharacters)
    entry.localGuessLabel = limits.cut(localGuessLabel, to: limits.nameCharacters)
    entry.notes = limits.cut(notes, to: limits.notesCharacters)
    entry.recognizedText = recognizedText.map {
      limits.cut($0, to: limits.recognizedTextCharacters)
    }
    entry.confidence = confidence.isFinite ? min(max(confidence, 0), 1) : 0
    return entry
  }
}
