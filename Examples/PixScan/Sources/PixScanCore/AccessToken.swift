/// The secret that proves a request comes from the page PixScan printed the URL of.
///
/// It exists because a server on 127.0.0.1 is reachable from every web page the user opens:
/// without it, any site could POST `/api/queue/empty`. It is made at launch from
/// `SystemRandomNumberGenerator` (128 bits), appears only in the URL printed once at startup,
/// and the page sends it back as the `X-PixScan-Token` header.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
  /// The token as 32 lowercase hexadecimal digits.
  public let value: String

  /// A new random token (128 bits from the system's secure generator).
  public init() {
    var generator = SystemRandomNumberGenerator()
    let words = [generator.next(), generator.next()] as [UInt64]
    value = words.map { word in
      let hex = String(word, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  /// Uses `value` as the token (tests use a known one).
  public init(value: String) {
    self.value = value
  }

  /// Never the token itself: a token interpolated into a log line by mistake stays secret.
  public var description: String { "AccessToken(redacted)" }

  /// Whether `candidate` is the token, compared in time independent of where they differ.
  public func matches(_ candidate: Substring) -> Bool {
    let expected = Array(value.utf8)
    let given = Array(candidate.utf8)
    guard expected.count == given.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(expected, given) { difference |= left ^ right }
    return difference == 0
  }
}
