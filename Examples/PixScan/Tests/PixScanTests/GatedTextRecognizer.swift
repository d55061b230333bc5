import DexImaging

/// A test double that holds every recognition until ``Gate/open()``: what a slow OCR engine
/// does, made deterministic.
struct GatedTextRecognizer: TextRecognizing {
  /// The gate the recognitions wait at; it counts who arrived.
  actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var arrivals = 0

    /// Called by a recognition: waits until the gate opens.
    func pass() async {
      arrivals += 1
      for waiter in arrivalWaiters { waiter.resume() }
      arrivalWaiters = []
      guard !isOpen else { return }
      await withCheckedContinuation { waiting.append($0) }
    }

    /// Waits until at least one recognition is held at the gate (or went through it).
    func firstArrival() async {
      guard arrivals == 0 else { return }
      await withCheckedContinuation { arrivalWaiters.append($0) }
    }

    /// Lets every held and later recognition through.
    func open() {
      isOpen = true
      for waiter in waiting { waiter.resume() }
      waiting = []
    }
  }

  let gate = Gate()
  var line: String

  func recognizeText(
    in image: RGBImage, options: TextRecognitionOptions
  ) async throws
    -> RecognizedText
  {
    await gate.pass()
    return RecognizedText(lines: [
      RecognizedTextLine(
        text: line, confidence: 0.9, boundingBox: PixelRect(x: 0, y: 0, width: 1, height: 1))
    ])
  }
}
