// dex-text-bench: one side of Benchmarks/DexTextRecognition/run.sh. Reads a photo file the way
// a host does (DexImaging's one decode to RGB8), recognises its text with
// TesseractTextRecognizer and prints one JSON line: the time of each step and the text, so
// that the driver can compare it with the `tesseract` command line on the same file.
//
//   dex-text-bench PHOTO [--warm]
// --warm recognises a second time on the pooled engine (no Init) and reports that too.
import DexImaging
import DexTextRecognition
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
  FileHandle.standardError.write(Data("usage: dex-text-bench PHOTO [--warm]\n".utf8))
  exit(64)
}
let warm = arguments.contains("--warm")
let clock = ContinuousClock()
func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

do {
  let start = clock.now
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  let image = try ImageDownscaler().decodePixels(from: data, target: .original)
  let decoded = clock.now
  let recognizer = TesseractTextRecognizer()
  let options = TextRecognitionOptions(minimumConfidence: 0, timeout: .seconds(600))
  let text = try await recognizer.recognizeText(in: image, options: options)
  let recognized = clock.now
  var report: [String: String] = [
    "decodeMs": String(format: "%.1f", milliseconds(decoded - start)),
    "firstRecognitionMs": String(format: "%.1f", milliseconds(recognized - decoded)),
    "width": "\(image.width)", "height": "\(image.height)",
    "text": text.string,
  ]
  if warm {
    let again = clock.now
    _ = try await recognizer.recognizeText(in: image, options: options)
    report["warmRecognitionMs"] = String(format: "%.1f", milliseconds(clock.now - again))
  }
  let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
  print(String(decoding: json, as: UTF8.self))
} catch {
  FileHandle.standardError.write(Data("dex-text-bench: \(error)\n".utf8))
  exit(1)
}
