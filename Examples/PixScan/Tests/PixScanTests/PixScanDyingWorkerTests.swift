#if os(Linux)
  import DexImaging
  import DexKitTesting
  import Foundation
  import Glibc
  import Logging
  import Synchronization
  import Testing

  @testable import PixScanCore

  /// PixScan's server on 127.0.0.1 decoding in real `dex-decode-worker` processes (as `pixscan`
  /// does by default), with the worker that holds a request killed, crashed or hung: that
  /// request gets a clear JSON error, the next ones are served, and the dead worker is collected
  /// (no zombie). The cases run side by side: each has a decoder of its own, and a hung
  /// worker's wait holds no thread of Swift's cooperative pool.
  @Suite(.timeLimit(.minutes(3)))
  struct PixScanDyingWorkerTests {
    /// What happens to the worker once it holds the request (it is stopped first, so it has not
    /// answered yet whatever the timing).
    enum Death: String, CaseIterable, Sendable {
      case killed, crashed, hung

      /// What the error's message says.
      var expectedMessage: String {
        switch self {
        case .killed: "signal 9 (SIGKILL)"
        case .crashed: "signal 11 (SIGSEGV)"
        case .hung: "did not answer within"
        }
      }

      /// Ends (or leaves hanging) the stopped worker `pid`.
      func happen(to pid: pid_t) {
        switch self {
        case .killed: kill(pid, SIGKILL)
        case .crashed:
          kill(pid, SIGSEGV)
          kill(pid, SIGCONT)
        case .hung: break  // stays stopped: the decoder's deadline kills it
        }
      }
    }

    /// Which of PixScan's decodes meets the dying worker.
    enum Path: String, CaseIterable, Sendable {
      case thumbnail, scan
    }

    /// Stops the worker the decoder hands its next request to, through the decoder's debug
    /// line "Isolated decode handed to a worker" (sent on the decoding thread before the
    /// request is written), and remembers every worker the decoder used.
    final class WorkerStopper: Sendable {
      private let state = Mutex<(armed: Bool, stopped: pid_t?, seen: Set<pid_t>)>(
        (false, nil, []))

      func arm() {
        state.withLock {
          $0.armed = true; $0.stopped = nil
        }
      }

      /// Every worker a request was handed to so far.
      var seen: Set<pid_t> { state.withLock { $0.seen } }

      /// No worker was handed a request within a minute of ``arm()``.
      struct NoWorkerStopped: Error {}

      /// The worker stopped since ``arm()``, once there is one (at most a minute: a request that
      /// never reaches a worker fails the test instead of hanging it).
      func stopped() async throws -> pid_t {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
          if let pid = state.withLock({ $0.stopped }) { return pid }
          try await Task.sleep(for: .milliseconds(10))
        }
        throw NoWorkerStopped()
      }

      func handOver(_ pid: pid_t) {
        state.withLock { state in
          state.seen.insert(pid)
          guard state.armed else { return }
          kill(pid, SIGSTOP)
          (state.armed, state.stopped) = (false, pid)
        }
      }

      var logger: Logger {
        var logger = Logger(label: "pixscan-test-decoder") { _ in Handler(stopper: self) }
        logger.logLevel = .debug
        return logger
      }

      struct Handler: LogHandler {
        let stopper: WorkerStopper
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
          get { metadata[key] }
          set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
          guard event.message.description == "Isolated decode handed to a worker",
            case .string(let text) = event.metadata?["pid"], let pid = pid_t(text)
          else { return }
          stopper.handOver(pid)
        }
      }
    }

    /// The state letter of process `pid` (Z for a zombie), or nil when it is gone (collected).
    static func state(of pid: pid_t) -> Character? {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      return stat[stat.index(after: close)...].first { $0 != " " }
    }

    @Test(arguments: Death.allCases, Path.allCases)
    func aDyingWorkerCostsOneRequest(death: Death, path: Path) async throws {
      let folder = try TemporaryFolder()
      let data = try TemporaryFolder()
      try folder.addSamplePhotos([.cat, .dog, .fish])
      let stopper = WorkerStopper()
      // The hung worker is killed at this deadline (the test waits it out), and every decode
      // that must succeed, a fresh worker's start included, has it too: 30 s, as in DexImaging's
      // tests (a fresh worker's decode took 0.65 s there under load; 5 s left too little).
      let decoder = IsolatedImageDecoder(
        maximumWorkers: 1, timeout: .seconds(30), logger: stopper.logger)
      try #require(
        decoder.workerExecutable != nil,
        "dex-decode-worker must be built beside the tests (swift build --build-tests of the root)")
      try await PixScanHTTPTests.withServerAndPort(
        folder, trash: data.file("Trash"), imaging: decoder,
        recognizer: ScriptedTextRecognizer(lines: ["read"])
      ) { send, port in
        let warm = try await send("GET", "/api/thumbnail?path=cat.jpg&size=card", nil)
        #expect(warm.status == 200)
        #expect(stopper.seen.count == 1)

        stopper.arm()
        var stopped: pid_t = 0
        switch path {
        case .thumbnail:
          // Sent apart from `send` (not Sendable), while this task stops the worker.
          async let answer = PixScanHTTPTests.raw(
            port: port, "GET", "/api/thumbnail?path=dog.jpg&size=card",
            headers: [
              ("Host", "127.0.0.1:\(port)"), ("X-PixScan-Token", PixScanHTTPTests.token.value),
            ])
          stopped = try await stopper.stopped()
          death.happen(to: stopped)
          let failed = try await answer
          #expect(failed.status == 422 && failed.errorCode == "imaging_failed")
          let message = (failed.json?["error"] as? [String: Any])?["message"] as? String ?? ""
          #expect(message.contains(death.expectedMessage), "\(message)")
        case .scan:
          let started = try await send("POST", "/api/recognize", #"{"path":"dog.jpg"}"#)
          #expect(started.status == 200)
          stopped = try await stopper.stopped()
          death.happen(to: stopped)
          let note = try await Self.recognitionNote(send)
          #expect(note.contains(death.expectedMessage), "\(note)")
        }

        // The same photo and another one are served by a fresh worker; the text is read.
        for photo in ["dog.jpg", "fish.jpg"] {
          let served = try await send("GET", "/api/thumbnail?path=\(photo)&size=card", nil)
          #expect(served.status == 200 && served.body.starts(with: [0xFF, 0xD8]))
        }
        let retried = try await send("POST", "/api/recognize", #"{"path":"dog.jpg"}"#)
        #expect(retried.status == 200)
        #expect(try await Self.recognizedPaths(send) == ["dog.jpg"])
        // The dead worker was collected (not even a zombie is left); a fresh one served the
        // rest, and it runs.
        #expect(Self.state(of: stopped) == nil, "worker \(stopped) is still there")
        let fresh = stopper.seen.subtracting([stopped])
        #expect(
          fresh.count == 1 && fresh.allSatisfy { Self.state(of: $0).map { $0 != "Z" } ?? false })
      }
    }

    /// Waits for the page's recognition note (set when a recognition fails).
    static func recognitionNote(
      _ send: (String, String, String?) async throws -> PixScanHTTPTests.Answer
    ) async throws -> String {
      while true {
        let state = try await send("GET", "/api/state", nil)
        let progress = state.json?["progress"] as? [String: Any]
        if let note = progress?["recognitionNote"] as? String { return note }
        try await Task.sleep(for: .milliseconds(20))
      }
    }

    /// Waits for a recognised text, and returns the paths that have one.
    static func recognizedPaths(
      _ send: (String, String, String?) async throws -> PixScanHTTPTests.Answer
    ) async throws -> [String] {
      while true {
        let texts = try await send("GET", "/api/texts?offset=0&limit=10", nil)
        let items = texts.json?["items"] as? [[String: Any]] ?? []
        if !items.isEmpty { return items.compactMap { $0["path"] as? String } }
        try await Task.sleep(for: .milliseconds(20))
      }
    }
  }
#endif
