import Foundation

/// The single page PixScan serves: plain HTML, CSS and JavaScript, a resource of this module.
public enum PixScanPage {
  /// The page's HTML.
  ///
  /// - Throws: ``PixScanError/resourceMissing(_:)`` when the resource is missing from the build.
  public static func html() throws(PixScanError) -> String {
    guard
      let url = Bundle.module.url(
        forResource: "index", withExtension: "html", subdirectory: "Resources"),
      let text = try? String(contentsOf: url, encoding: .utf8)
    else { throw .resourceMissing("page (Resources/index.html)") }
    return text
  }
}
