/// Why ``IsolatedImageDecoder`` has no answer from its worker process: the photo may be
/// hostile (a decoder bug it triggers costs that one worker, which is replaced), or the worker
/// may be missing.
///
/// Carried by ``ImagingError/isolatedDecodingFailed(_:)``; the host keeps running and the next
/// decode starts a fresh worker.
public enum IsolatedDecodingFailure: Error, Sendable, Hashable {
  /// No worker could be started: `reason` says which executable was looked for, and where.
  case workerUnavailable(reason: String)
  /// The worker ended on `signal` mid-decode (SIGSEGV from a decoder bug, SIGKILL from outside,
  /// SIGILL or SIGABRT when its address-space limit made an allocation fail, SIGSYS when it
  /// made a system call its seccomp filter does not allow).
  case workerCrashed(signal: Int32)
  /// The worker exited with `status` instead of answering.
  case workerExited(status: Int32)
  /// The worker used up its CPU-time limit (RLIMIT_CPU, SIGXCPU).
  case cpuTimeExceeded
  /// No answer within ``IsolatedImageDecoder/timeout``; the worker was killed.
  case timedOut(after: Duration)
  /// The calling task was cancelled; the worker was killed.
  case cancelled
  /// The worker's answer broke the protocol or the limits (sizes beyond the request's, byte
  /// counts that do not match); nothing of it was allocated or used.
  case malformedReply(reason: String)
}

extension IsolatedDecodingFailure: CustomStringConvertible {
  /// A one-line explanation for logs.
  public var description: String {
    switch self {
    case .workerUnavailable(let reason): "no decoding worker could be started: \(reason)"
    case .workerCrashed(let signal):
      "the decoding worker was ended by signal \(signal) (\(Self.signalName(signal)))"
    case .workerExited(let status): "the decoding worker exited with status \(status)"
    case .cpuTimeExceeded: "the decoding worker used up its CPU-time limit"
    case .timedOut(let limit): "the decoding worker did not answer within \(limit)"
    case .cancelled: "the decode was cancelled and its worker ended"
    case .malformedReply(let reason): "the decoding worker's answer was refused: \(reason)"
    }
  }

  private static func signalName(_ signal: Int32) -> String {
    switch signal {
    case 4: "SIGILL"
    case 6: "SIGABRT"
    case 7: "SIGBUS"
    case 9: "SIGKILL"
    case 11: "SIGSEGV"
    case 24: "SIGXCPU"
    case 31: "SIGSYS"
    default: "signal \(signal)"
    }
  }
}
