import Foundation
import PixScanCore
import Testing

@Suite("ScreenshotRule")
struct ScreenshotRuleTests {
  @Test(arguments: ["Screenshot 2026-01-02.png", "Screen Shot 2020.jpg", "screen_shot_1.webp"])
  func namesThatSaySoAreScreenshots(_ name: String) {
    #expect(ScreenshotRule.isScreenshot(fileName: name, header: Data()))
  }

  @Test(arguments: [(1170, 2532), (1920, 1080), (2880, 1800), (1080, 2400)])
  func screenSizedPNGsWithoutEXIFAreScreenshots(_ size: (Int, Int)) {
    #expect(
      ScreenshotRule.isScreenshot(
        fileName: "IMG_1.png", header: pngHeader(width: size.0, height: size.1)))
  }

  @Test func aPNGWithCameraEXIFIsNot() {
    #expect(
      !ScreenshotRule.isScreenshot(
        fileName: "IMG_1.png", header: pngHeader(width: 1920, height: 1080, exif: true)))
  }

  @Test(arguments: [(1000, 1000), (300, 200), (1200, 700)])
  func otherSizesAreNot(_ size: (Int, Int)) {
    #expect(
      !ScreenshotRule.isScreenshot(
        fileName: "a.png", header: pngHeader(width: size.0, height: size.1)))
  }

  @Test func aJPEGOrGarbageIsNot() {
    #expect(!ScreenshotRule.isScreenshot(fileName: "a.jpg", header: Data([0xFF, 0xD8, 0xFF])))
    #expect(!ScreenshotRule.isScreenshot(fileName: "a.png", header: Data(repeating: 7, count: 100)))
  }
}
