import DexModel
import Testing

@Suite("DexKitVersion")
struct DexKitVersionTests {
  @Test func currentIsTheSemanticVersionOfItsParts() {
    #expect(
      DexKitVersion.current
        == "\(DexKitVersion.major).\(DexKitVersion.minor).\(DexKitVersion.patch)")
    #expect(DexKitVersion.current == "0.1.0")
  }
}
