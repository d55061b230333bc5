import Testing
@testable import DexStorage

@Test func DexStorageModuleLinks() {
  #expect(DexCategory.allCases.count == 12)
}
