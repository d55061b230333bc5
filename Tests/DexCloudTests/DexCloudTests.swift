import Testing
@testable import DexCloud

@Test func DexCloudModuleLinks() {
  #expect(DexCategory.allCases.count == 12)
}
