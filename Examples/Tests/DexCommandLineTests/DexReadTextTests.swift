import DexExamplesTestSupport
import Foundation
import Testing

/// `dex scan --read-text` with the real TesseractTextRecognizer on a photo of a plant tag that
/// the test renders (Scripts/text-photo.py: Pillow and the DejaVu fonts from Debian), then
/// `dex list --search` finding it by a word only the tag carries.
@Suite("dex scan --read-text", .serialized)
struct DexReadTextTests {
  /// Renders a plant tag into `directory`; returns the PNG's path.
  static func renderTag(in directory: URL) async throws -> String {
    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let out = directory.appendingPathComponent("tag.png")
    let render = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/python3"),
      arguments: [
        root.appendingPathComponent("Scripts/text-photo.py").path, "plant-tag", out.path,
        "--size", "32", "--rotate", "3",
      ])
    #expect(
      render.status == 0,
      "Scripts/text-photo.py needs Debian python3-pil and fonts-dejavu-core: \(String(decoding: render.standardError, as: UTF8.self))"
    )
    return out.path
  }

  @Test func textReadInAScanIsKeptAndSearchable() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let tag = try await Self.renderTag(in: dex.store.appendingPathComponent("photos"))

    let scan = try await dex("scan", "--offline", "--read-text", tag)
    #expect(scan.status == 0, "\(scan.output)\n\(scan.error)")
    #expect(scan.output.contains("Text in the photo"), "\(scan.output)")
    #expect(scan.output.contains("English Lavender"), "\(scan.output)")

    let found = try await dex("list", "--search", "angustifolia", "--json")
    #expect(found.status == 0, "\(found.error)")
    let entries =
      try JSONSerialization.jsonObject(with: Data(found.output.utf8)) as? [[String: Any]]
    #expect(entries?.count == 1, "\(found.output)")
    let text = try #require(entries?.first?["recognizedText"] as? String)
    #expect(text.contains("Lavandula angustifolia"), "\(text)")
    let id = try #require(entries?.first?["id"] as? String)
    #expect(try await dex("show", id).output.contains("Full sun"))
    #expect(try await dex("list", "--search", "lavender drained").output.contains("1 discovery"))
    #expect(try await dex("list", "--search", "rosemary").output.contains("0 discoveries"))
  }

  @Test func withoutTheFlagNoTextIsRead() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let tag = try await Self.renderTag(in: dex.store.appendingPathComponent("photos"))
    let scan = try await dex("scan", "--offline", tag)
    #expect(scan.status == 0, "\(scan.output)\n\(scan.error)")
    #expect(!scan.output.contains("Text in the photo"))
    #expect(try await dex("list", "--search", "angustifolia").output.contains("0 discoveries"))
  }
}
