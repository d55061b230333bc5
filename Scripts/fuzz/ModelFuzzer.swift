// libFuzzer entry point for DexModel's parsers; built by Scripts/fuzz-model.sh together with
// the module's sources (one module, so no import is needed).

/// The libFuzzer entry point: feeds one input to every DexModel parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func dexModelFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  // The full layered parser, and the lenient reader on its own.
  if let result = try? ScanResult(jsonString: text) {
    // Invariants every accepted result keeps.
    if result.commonName.isEmpty || !(0...1).contains(result.confidence)
      || DexRarity(rawValue: result.rarity) == nil
    {
      fatalError("invariant broken by an accepted result")
    }
  }
  _ = try? LenientJSONReader().document(from: text)
  _ = DexCategory.matching(text)
  return 0
}
