import Testing
@testable import DexKit

@Test func DexKitModuleLinks() {
  #expect(DexCategory.allCases.count == 12)
}
