import DexImaging
import DexTestTraits
import DexTextRecognition
import Testing

@Suite(.offCooperativePool)
struct TesseractTextRecognizerSmokeTests {
  @Test func readsARenderedReceipt() async throws {
    let photo = try await TextPhoto.render("receipt", size: 24)
    let text = try await TesseractTextRecognizer().recognizeText(in: photo.image)
    let accuracy = wordAccuracy(expected: photo.text, recognized: text.string)
    print("receipt 24px: word accuracy \(accuracy)")
    #expect(accuracy >= 0.8)
    #expect(text.lines.allSatisfy { (0...1).contains($0.confidence) })
  }
}
