import Testing
@testable import DexModel

@Test func categories() { #expect(DexCategory.allCases.count == 12) }
