import DexTestSupport
import Foundation

/// An independent HMAC-SHA256 / SHA-256 implementation: Python's `hmac` and `hashlib`, run as a
/// child process. The golden-vector tests compare DexCloud against it at run time.
enum ExternalHMAC {
  struct Unavailable: Error {}

  /// Runs `python3 -c <script>` with `input` on stdin and returns trimmed stdout.
  static func python(_ script: String, input: Data) async throws -> String {
    let outcome = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3", "-c", script], input: input)
    guard outcome.status == 0, !outcome.killedBySignal else { throw Unavailable() }
    return String(decoding: outcome.standardOutput, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// `hmac.new(key, message, hashlib.sha256).hexdigest()`, key and message passed as hex.
  static func hmacSHA256(key: [UInt8], message: [UInt8]) async throws -> String {
    let payload = hex(key) + "\n" + hex(message)
    return try await python(
      """
      import sys, hmac, hashlib
      k, m = sys.stdin.read().split("\\n")
      print(hmac.new(bytes.fromhex(k), bytes.fromhex(m), hashlib.sha256).hexdigest())
      """, input: Data(payload.utf8))
  }

  /// The signature per the contract, computed entirely in Python from the four raw fields.
  static func signature(
    secret: String, method: String, path: String, timestamp: String, body: Data
  )
    async throws -> String
  {
    let payload = [
      hex(Array(secret.utf8)), hex(Array(method.utf8)), hex(Array(path.utf8)),
      timestamp, hex(Array(body)),
    ].joined(separator: "\n")
    return try await python(
      """
      import sys, hmac, hashlib
      s, m, p, t, b = sys.stdin.read().split("\\n")
      canonical = "\\n".join([bytes.fromhex(m).decode().upper(), bytes.fromhex(p).decode(), t,
          hashlib.sha256(bytes.fromhex(b)).hexdigest()])
      print(hmac.new(bytes.fromhex(s), canonical.encode(), hashlib.sha256).hexdigest())
      """, input: Data(payload.utf8))
  }

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }
}
