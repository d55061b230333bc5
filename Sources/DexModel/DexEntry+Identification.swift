extension DexEntry {
  /// Whether the entry names something: the rule the reply parser applies to a cloud answer (a
  /// non-empty name, and not a bare "Unknown" without a summary that explains it), for the
  /// store to apply to every entry it saves, edits or imports.
  package var identifiesSomething: Bool {
    ScanResultExtractor.identifiesSomething(commonName: commonName, summary: summary)
  }
}
