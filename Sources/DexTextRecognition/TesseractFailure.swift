/// Why a recognition on a ``TesseractEngine`` did not produce lines.
enum TesseractFailure: Error {
  case cancelled
  case timedOut
  case failed(String)
}
