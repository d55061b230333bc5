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

    /// Runs `executable` with `arguments`, feeding it `input` on standard input, and returns once
    /// it has exited. `environment` replaces the inherited one when given; `directory` is the
    /// working directory (the caller's when `nil`).
    public static func run(
      _ executable: URL, arguments: [String], environment: [String: String]? = nil,
      input: Data = Data(), in workingDirectory: URL? = nil
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
      let (status, signalled) = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<(Int32, Bool), any Error>) in
        process.terminationHandler = { process in
          continuation.resume(
            returning: (process.terminationStatus, process.terminationReason == .uncaughtSignal))
        }
        do {
          try process.run()
        } catch {
          process.terminationHandler = nil
          continuation.resume(throwing: error)
        }
      }
      return Outcome(
        status: status, killedBySignal: signalled, standardOutput: try Data(contentsOf: outURL),
        standardError: try Data(contentsOf: errURL))
    }
  }
#endif
