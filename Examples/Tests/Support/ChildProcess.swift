import Foundation
import Subprocess

#if canImport(System)
  import System
#else
  import SystemPackage
#endif

// Child processes exist on Linux and macOS only; iOS, tvOS and watchOS have none, and the tests
// that start one run on those two only.
#if os(Linux) || os(macOS)

  /// Runs a program to completion, or while a test reads its output, without blocking a
  /// cooperative thread and within a time limit.
  ///
  /// Built on swift-subprocess, not Foundation's `Process`: on Linux, `Process.run()` reads
  /// `/proc/self/fd` with a copy past the end of `readdir`'s buffer once the test process holds
  /// about 1 360 descriptors, and the proxy's tests hold more than that (a thousand trickling
  /// connections, both ends in this process), so a child started meanwhile could crash the whole
  /// test run. swift-subprocess closes the child's other descriptors with `closefrom` instead.
  public enum ChildProcess {
    /// How a run ended and what it printed.
    public struct Outcome: Sendable {
      /// The exit status, or the signal number when ``killedBySignal``.
      public let status: Int32
      /// True when a signal ended the process.
      public let killedBySignal: Bool
      /// Everything written to standard output (empty when the test read it as it came).
      public let standardOutput: Data
      /// Everything written to standard error.
      public let standardError: Data
    }

    /// A child that had not ended within its time limit: it was killed and the test gets this
    /// error instead of waiting forever.
    public struct TimedOut: Error, CustomStringConvertible {
      /// The program's file name.
      public let program: String
      /// The time limit that passed.
      public let timeLimit: Duration

      public var description: String {
        "\(program) did not end within \(timeLimit) and was killed"
      }
    }

    /// The most a run collects of either output; a child that prints more fails the run.
    /// (swift-subprocess reserves this much address space for each while it runs.)
    public static let outputLimit = 8 << 20

    /// Runs `executable` with `arguments` (standard input empty) and returns once it has exited.
    /// `environment` replaces the inherited one when given; `directory` is the working directory
    /// (the caller's when `nil`). A child still running after `timeLimit` is killed and
    /// ``TimedOut`` thrown: a test never waits for a child without a bound. (No input is written
    /// to a child: swift-subprocess 1.0.2 traps when a child closes a pipe it is still writing
    /// input to, swiftlang/swift-subprocess#367.)
    public static func run(
      _ executable: URL, arguments: [String], environment: [String: String]? = nil,
      in workingDirectory: URL? = nil, timeLimit: Duration = .seconds(300)
    ) async throws -> Outcome {
      let result = try await withTimeLimit(timeLimit, program: executable) {
        try await Subprocess.run(
          .path(FilePath(executable.path)), arguments: Arguments(arguments),
          environment: Self.environment(environment),
          workingDirectory: workingDirectory.map { FilePath($0.path) },
          input: .none, output: .bytes(limit: outputLimit), error: .bytes(limit: outputLimit))
      }
      let (status, signalled) = Self.status(result.terminationStatus)
      return Outcome(
        status: status, killedBySignal: signalled, standardOutput: Data(result.standardOutput),
        standardError: Data(result.standardError))
    }

    /// Runs `executable` with its standard output handed to `body` as it is written (standard
    /// input empty, standard error collected), and returns what `body` returned and how the
    /// child ended. The child is killed if `body` throws, or when `timeLimit` passes (then
    /// ``TimedOut`` is thrown).
    public static func withOutput<Value: Sendable>(
      of executable: URL, arguments: [String], environment: [String: String]? = nil,
      timeLimit: Duration = .seconds(120),
      _ body: @escaping @Sendable (inout Reader) async throws -> Value
    ) async throws -> (result: Value, outcome: Outcome) {
      let run = try await withTimeLimit(timeLimit, program: executable) {
        try await Subprocess.run(
          .path(FilePath(executable.path)), arguments: Arguments(arguments),
          environment: Self.environment(environment), input: .none, output: .sequence,
          error: .bytes(limit: outputLimit)
        ) { execution in
          var reader = Reader(
            execution.standardOutput.makeAsyncIterator(),
            processIdentifier: execution.processIdentifier.value)
          return try await body(&reader)
        }
      }
      let (status, signalled) = Self.status(run.terminationStatus)
      return (
        run.closureResult,
        Outcome(
          status: status, killedBySignal: signalled, standardOutput: Data(),
          standardError: Data(run.standardError))
      )
    }

    /// A running child's standard output, read as it comes.
    public struct Reader {
      private var chunks: SubprocessOutputSequence.Iterator
      private var bytes: [UInt8] = []
      /// The child's process id.
      public let processIdentifier: pid_t
      /// Whether the output has ended.
      public private(set) var ended = false

      init(_ chunks: SubprocessOutputSequence.Iterator, processIdentifier: pid_t) {
        self.chunks = chunks
        self.processIdentifier = processIdentifier
      }

      /// Everything read so far (decoded whole, so a character split between two reads is
      /// read right).
      public var text: String { String(decoding: bytes, as: UTF8.self) }

      /// Reads until ``text`` satisfies `enough` or the output ends; throws `CancellationError`
      /// when the run is cancelled (its time limit passed) instead of taking that for the end.
      public mutating func read(until enough: (String) -> Bool) async throws {
        while !enough(text), !ended {
          guard let chunk = try await chunks.next() else {
            try Task.checkCancellation()
            ended = true
            return
          }
          chunk.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
      }

      /// Reads to the end of the output.
      public mutating func readToEnd() async throws {
        try await read { _ in false }
      }

      /// Whether the child is still running (``ProcessState/isLive(_:)``).
      public var isRunning: Bool { ProcessState.isLive(processIdentifier) }
    }

    /// `operation`, cancelled (which kills its child) once `timeLimit` passes.
    private static func withTimeLimit<Value: Sendable>(
      _ timeLimit: Duration, program: URL,
      _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
      try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
          try await Task.sleep(for: timeLimit)
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
          throw TimedOut(program: program.lastPathComponent, timeLimit: timeLimit)
        }
        return value
      }
    }

    private static func environment(_ variables: [String: String]?) -> Subprocess.Environment {
      guard let variables else { return .inherit }
      var keyed: [Environment.Key: String] = [:]
      for (key, value) in variables { keyed[Environment.Key(stringLiteral: key)] = value }
      return .custom(keyed)
    }

    private static func status(_ status: TerminationStatus) -> (Int32, Bool) {
      switch status {
      case .exited(let code): (code, false)
      case .signaled(let signal): (signal, true)
      }
    }
  }
#endif
