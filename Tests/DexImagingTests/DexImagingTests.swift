import Testing
@testable import DexImaging

@Test func DexImagingModuleLinks() {
  #expect(DexCategory.allCases.count == 12)
}
