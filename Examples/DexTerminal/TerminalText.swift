import Foundation

/// Text from a model, an imported archive or a file name, made safe to print to a terminal.
///
/// Entry names, summaries, facts and recognized text are chosen by whoever controls the cloud
/// reply or the archive: printed as they are, an escape sequence in them could clear the screen,
/// retitle the window, plant a hyperlink or rewrite the line before it. Control characters (C0,
/// DEL, C1), the line and paragraph separators and the bidirectional overrides that reorder what
/// is shown become U+FFFD; line breaks and tabs become spaces unless kept.
public enum TerminalText {
  /// `text` with every control character and bidirectional override replaced.
  public static func safe(_ text: String, keepingNewlines: Bool = false) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x0A where keepingNewlines: scalars.append(scalar)
      case 0x09, 0x0A, 0x0D: scalars.append(" ")
      case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069:
        scalars.append("\u{FFFD}")
      default: scalars.append(scalar)
      }
    }
    return String(scalars)
  }

  /// JSON text (as `JSONEncoder` writes it) with DEL, the C1 controls, the line and paragraph
  /// separators and the bidirectional overrides written as `\uXXXX` escapes: the same JSON to a
  /// parser, but none of them reaches the terminal raw (`JSONEncoder` escapes only U+0000 to
  /// U+001F). They can only occur inside strings, where an escape means the same character.
  public static func json(_ encoded: Data) -> String {
    var out = String.UnicodeScalarView()
    for scalar in String(decoding: encoded, as: UTF8.self).unicodeScalars {
      switch scalar.value {
      case 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out.append(
          contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  /// `confidence` (0...1) as a whole percentage, 0...100 whatever the value (a stored or
  /// imported entry may hold anything finite, and `Int(_:)` traps outside its range).
  public static func percent(_ confidence: Double) -> Int {
    guard confidence.isFinite else { return 0 }
    return Int((min(max(confidence, 0), 1) * 100).rounded())
  }
}
