import DexImaging

/// Lends initialised Tesseract handles, one per in-flight call, and keeps a few idle ones so
/// that a second photo does not pay for loading the language data again.
///
/// Shared by every copy of a ``TesseractTextRecognizer``; an actor because the idle lists are
/// shared mutable state.
actor TesseractEnginePool {
  /// How many idle engines are kept per data directory and language list; further ones are
  /// ended when returned (each holds its language data, tens of megabytes).
  let maxIdlePerKey: Int
  private var idle: [TesseractEngineKey: [TesseractEngine]] = [:]

  init(maxIdlePerKey: Int = 2) {
    self.maxIdlePerKey = max(0, maxIdlePerKey)
  }

  /// An idle engine for `key`, or a new one (loading its data off the cooperative pool).
  func checkOut(_ key: TesseractEngineKey) async throws(TextRecognitionError) -> TesseractEngine {
    if var engines = idle[key], let engine = engines.popLast() {
      idle[key] = engines
      return engine
    }
    return try await TesseractEngine.make(key: key)
  }

  /// Takes `engine` back for the next call, or ends it when enough are idle.
  func checkIn(_ engine: TesseractEngine) {
    var engines = idle[engine.key, default: []]
    guard engines.count < maxIdlePerKey else { return }
    engines.append(engine)
    idle[engine.key] = engines
  }

  /// How many engines are idle (for tests).
  var idleCount: Int { idle.values.reduce(0) { $0 + $1.count } }
}
