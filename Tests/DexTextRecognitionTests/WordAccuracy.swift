#if os(Linux) && Tesseract
  import Foundation

  /// The share of the printed words that the recognizer read exactly (case and punctuation
  /// aside), each recognised word used at most once.
  func wordAccuracy(expected: String, recognized: String) -> Double {
    let want = words(expected)
    guard !want.isEmpty else { return 1 }
    var have: [String: Int] = [:]
    for word in words(recognized) { have[word, default: 0] += 1 }
    var found = 0
    for word in want where have[word, default: 0] > 0 {
      have[word, default: 0] -= 1
      found += 1
    }
    return Double(found) / Double(want.count)
  }

  /// Lower-cased words with the punctuation around them removed.
  func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: { $0.isWhitespace }).map {
      String($0).trimmingCharacters(in: .punctuationCharacters)
    }.filter { !$0.isEmpty }
  }
#endif
