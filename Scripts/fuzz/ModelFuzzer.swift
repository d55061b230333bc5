// libFuzzer entry point for DexModel's parsers; built by Scripts/fuzz-model.sh together with
// the module's sources (one module, so no import is needed).
import Foundation

/// The libFuzzer entry point: feeds one input to every DexModel parser and checks the
/// invariants each one promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func dexModelFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let text = String(decoding: bytes, as: UTF8.self)
  // The full layered parser.
  if let result = try? ScanResult(jsonString: text) {
    // Invariants every accepted result keeps.
    if result.commonName.isEmpty || !(0...1).contains(result.confidence)
      || DexRarity(rawValue: result.rarity) == nil
    {
      fatalError("invariant broken by an accepted result")
    }
  }
  // The lenient reader on its own, and the repairs it reports.
  if let document = try? LenientJSONReader().document(from: text) {
    if document.endOffset < 0 || document.endOffset > text.utf8.count {
      fatalError("end offset outside the input")
    }
    if let path = document.cutPath {
      if !document.isTruncated || !pathReachesScalar(document.value, path[...]) {
        fatalError("cut path does not lead to a scalar of a truncated document")
      }
      _ = ScanResultExtractor.settlingCut(in: document.value, at: path)
    }
    // Valid JSON reads exactly as a strict parser reads it. (JSON has no raw control
    // characters; JSONDecoder accepts some after a NUL, `0\0x`, so those are not compared.)
    if !bytes.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
      let strict = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)),
      strict != document.value
    {
      fatalError("valid JSON read differently from a strict parser")
    }
  }
  _ = DexCategory.matching(text)
  return 0
}

/// Whether `path` leads from `value` to a string, number, bool or null.
func pathReachesScalar(_ value: JSONValue, _ path: ArraySlice<LenientJSONReader.PathStep>) -> Bool {
  guard let step = path.first else {
    switch value {
    case .array, .object: return false
    case .null, .bool, .number, .string: return true
    }
  }
  switch (value, step) {
  case (.object(let members), .key(let key)):
    return members[key].map { pathReachesScalar($0, path.dropFirst()) } ?? false
  case (.array(let elements), .index(let index)) where elements.indices.contains(index):
    return pathReachesScalar(elements[index], path.dropFirst())
  default:
    return false
  }
}
