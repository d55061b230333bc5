#if os(Linux) && Tesseract
  import DexImaging
  import DexTestSupport
  import Foundation

  /// A photo of printed text rendered at test time by `Scripts/text-photo.py` (Pillow and the
  /// DejaVu fonts from Debian), decoded once to the pixels the recognizer takes.
  struct TextPhoto: Sendable {
    /// The printed text, one line per printed line.
    let text: String
    /// The decoded photo.
    let image: RGBImage
    /// The PNG the script wrote (for the CLI-based checks).
    let pngData: Data

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Renders `kind` (receipt, sign, plant-tag, card-name, page) with text `size` pixels high,
    /// turned `rotation` degrees counter-clockwise.
    static func render(
      _ kind: String, size: Int, rotation: Double = 0, canvas: String? = nil
    ) async throws -> TextPhoto {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("dex-text-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let out = directory.appendingPathComponent("photo.png")
      var arguments = [
        repositoryRoot.appendingPathComponent("Scripts/text-photo.py").path, kind, out.path,
        "--size", "\(size)", "--rotate", "\(rotation)",
      ]
      if let canvas { arguments += ["--canvas", canvas] }
      let outcome = try await ChildProcess.run(python, arguments: arguments)
      guard outcome.status == 0 else {
        throw RenderError(
          message: "Scripts/text-photo.py failed (needs Debian python3-pil and fonts-dejavu-core): "
            + String(decoding: outcome.standardError, as: UTF8.self))
      }
      struct Answer: Decodable { let text: String }
      let answer = try JSONDecoder().decode(Answer.self, from: outcome.standardOutput)
      let data = try Data(contentsOf: out)
      let image = try await ImageDownscaler().decodePixels(from: data, target: .original)
      return TextPhoto(text: answer.text, image: image, pngData: data)
    }

    /// Debian's python3, where python3-pil installs Pillow; any python3 on PATH otherwise.
    static var python: URL {
      let debian = URL(fileURLWithPath: "/usr/bin/python3")
      return FileManager.default.isExecutableFile(atPath: debian.path)
        ? debian : URL(fileURLWithPath: "/usr/bin/env")
    }

    struct RenderError: Error, CustomStringConvertible {
      let message: String
      var description: String { message }
    }
  }
#endif
