import Foundation

/// Scrubs secrets out of text before it reaches an error or a log line.
///
/// Two layers: every secret the client currently knows (bootstrap key, session secret, the
/// signature just sent) is replaced wherever it appears, and any run of 32 or more
/// token-looking characters (hex, base64, base64url) is replaced too, which catches secrets the
/// client does not know about, such as another session's secret echoed by a misbehaving server.
struct Redactor: Sendable {
  static let replacement = "[redacted]"
  private let secrets: [String]

  init(secrets: [String]) {
    self.secrets = secrets.filter { $0.utf8.count >= 4 }
  }

  func redact(_ text: String) -> String {
    // JSON may escape "/" as "\/" (Swift's JSONEncoder does), which would split a secret and
    // a token run apart: read the escape as the character itself first.
    var result = text.replacingOccurrences(of: "\\/", with: "/")
    for secret in secrets {
      result = result.replacingOccurrences(of: secret, with: Self.replacement)
    }
    return Self.scrubTokenRuns(result)
  }

  /// A short, single-line, redacted excerpt of a body (at most `limit` characters).
  func excerpt(of body: Data, limit: Int = 200) -> String {
    let prefix = body.prefix(4 * limit)
    let text = String(decoding: prefix, as: UTF8.self)
      .replacingOccurrences(of: "\n", with: " ")
      .replacingOccurrences(of: "\r", with: " ")
    let redacted = redact(text)
    if redacted.count > limit || body.count > prefix.count {
      return String(redacted.prefix(limit)) + "…"
    }
    return redacted
  }

  private static func isTokenCharacter(_ character: Character) -> Bool {
    character.isASCII
      && (character.isLetter || character.isNumber || "+/=_-".contains(character))
  }

  static func scrubTokenRuns(_ text: String) -> String {
    var output = ""
    var run = ""
    func flush() {
      if run.count >= 32 { output += replacement } else { output += run }
      run = ""
    }
    for character in text {
      if isTokenCharacter(character) {
        run.append(character)
      } else {
        flush()
        output.append(character)
      }
    }
    flush()
    return output
  }
}
