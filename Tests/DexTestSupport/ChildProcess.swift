import Foundation

// Foundation's Process exists on Linux and macOS only; iOS, tvOS and watchOS have no child
// processes, and the tests that start one run on those two only.
#if os(Linux) || os(macOS)

  /// Runs a program to completion without blocking a cooperative thread.
  ///
  /// `Process.waitUntilExit()` and reading a pipe to its end block the calling thread; in an async
  /// test that thread belongs to the cooperative pool (one per core), and a few such waits stall
  /// every other suite. Here the output goes to temporary files and the exit is awaited through
  /// `terminationHandler`.
  ///
  /// On Linux, `Process.run()` reads past the end of `readdir`'s buffer (and can crash) once the
  /// process holds about 1 360 descriptors; the SDK's tests hold far fewer (about 700 at most,
  /// mostly open stores). The Examples' tests, which hold thousands of sockets, start children
  /// through swift-subprocess instead (`Examples/Tests/Support/ChildProcess.swift`); this
  /// package may depend on nothing but swift-log, swift-crypto and GRDB.
  public enum ChildProcess {
    /// How a run ended and what it printed.
    public struct Outcome: Sendable {
      /// The exit status, or the signal number when ``killedBySignal``.
      public let status: Int32
      /// True when a signal ended the process.
      public let killedBySignal: Bool
      /// Everything written to standard output.
      public let standardOutput: Data
      /// Everything written to standard error.
      public let standardError: Data
    }

    /// A child that had not ended within its time limit: it was killed (`SIGKILL`) and the test
    /// gets this error instead of waiting forever.
    ///
    /// `stillRunning` tells a child that hung (true) from one that had ended without Foundation
    /// reporting its end (false: a zombie, or gone), which is a different fault.
    public struct TimedOut: Error, CustomStringConvertible {
      /// The program's file name.
      public let program: String
      /// The time limit that passed.
      public let timeLimit: Duration
      /// Whether the child was still running (not a zombie) when the limit passed.
      public let stillRunning: Bool
      /// Its standard error up to then.
      public let standardError: String

      public var description: String {
        "\(program) did not end within \(timeLimit) (\(stillRunning ? "still running, killed" : "ended, but its end was never reported")); standard error: \(standardError.suffix(2000))"
      }
    }

    /// Runs `executable` with `arguments`, feeding it `input` on standard input, and returns once
    /// it has exited. `environment` replaces the inherited one when given; `directory` is the
    /// working directory (the caller's when `nil`). A child still running after `timeLimit` is
    /// killed and ``TimedOut`` thrown: a test never waits for a child without a bound.
    public static func run(
      _ executable: URL, arguments: [String], environment: [String: String]? = nil,
      input: Data = Data(), in workingDirectory: URL? = nil,
      timeLimit: Duration = .seconds(300)
    ) async throws -> Outcome {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("dex-child-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let inURL = directory.appendingPathComponent("stdin")
      let outURL = directory.appendingPathComponent("stdout")
      let errURL = directory.appendingPathComponent("stderr")
      try input.write(to: inURL)
      try Data().write(to: outURL)
      try Data().write(to: errURL)
      let stdin = try FileHandle(forReadingFrom: inURL)
      let stdout = try FileHandle(forWritingTo: outURL)
      let stderr = try FileHandle(forWritingTo: errURL)
      defer {
        try? stdin.close()
        try? stdout.close()
        try? stderr.close()
      }

      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      if let environment { process.environment = environment }
      if let workingDirectory { process.currentDirectoryURL = workingDirectory }
      process.standardInput = stdin
      process.standardOutput = stdout
      process.standardError = stderr
      let ending = Ending()
      let watchdog = Task.detached {
        try await Task.sleep(for: timeLimit)
        let pid = process.processIdentifier
        let stillRunning = ProcessState.isLive(pid)
        if stillRunning { kill(pid, SIGKILL) }
        let errors = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        ending.resume(
          with: .failure(
            TimedOut(
              program: executable.lastPathComponent, timeLimit: timeLimit,
              stillRunning: stillRunning, standardError: errors)))
      }
      defer { watchdog.cancel() }
      let (status, signalled) = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<(Int32, Bool), any Error>) in
        ending.set(continuation)
        process.terminationHandler = { process in
          ending.resume(
            with: .success(
              (process.terminationStatus, process.terminationReason == .uncaughtSignal)))
        }
        do {
          try process.run()
        } catch {
          process.terminationHandler = nil
          ending.resume(with: .failure(error))
        }
      }
      return Outcome(
        status: status, killedBySignal: signalled, standardOutput: try Data(contentsOf: outURL),
        standardError: try Data(contentsOf: errURL))
    }

    /// The one resumption of a run's continuation: by the termination handler, a failed start
    /// or the watchdog, whichever comes first; later ones are dropped.
    private final class Ending: @unchecked Sendable {
      private let lock = NSLock()
      private var continuation: CheckedContinuation<(Int32, Bool), any Error>?
      /// An outcome that came before the continuation was set.
      private var early: Result<(Int32, Bool), any Error>?
      private var resumed = false

      func set(_ continuation: CheckedContinuation<(Int32, Bool), any Error>) {
        let outcome: Result<(Int32, Bool), any Error>? = lock.withLock {
          guard let early else {
            self.continuation = continuation
            return nil
          }
          resumed = true
          return early
        }
        if let outcome { continuation.resume(with: outcome) }
      }

      func resume(with result: Result<(Int32, Bool), any Error>) {
        let waiting: CheckedContinuation<(Int32, Bool), any Error>? = lock.withLock {
          guard !resumed else { return nil }
          guard let continuation else {
            if early == nil { early = result }
            return nil
          }
          resumed = true
          self.continuation = nil
          return continuation
        }
        waiting?.resume(with: result)
      }
    }
  }
#endif
