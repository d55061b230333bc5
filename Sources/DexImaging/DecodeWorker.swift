#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import Foundation
  import Glibc

  /// One running `dex-decode-worker`: its process id and its end of the socket pair.
  ///
  /// A value owned by one caller at a time (``DecodeWorkerPool`` lends it out); every worker
  /// ends in ``terminate()`` or ``reap()``, so no zombie and no descriptor outlives it.
  struct DecodeWorker: Sendable {
    let processID: pid_t
    let descriptor: Int32
    /// Requests answered so far (the pool retires a worker after a number of them, since its
    /// CPU-time limit counts over its whole life).
    var served = 0

    /// What a worker is started with.
    struct Launch: Sendable {
      var executable: String
      var addressSpaceBytes: Int
      var cpuSecondsPerLife: Int
      var allowsTestHooks: Bool
    }

    /// Starts a worker with posix_spawn + exec; its limits are set by this process (prlimit,
    /// before the first request is sent) and again by the worker itself.
    static func start(_ launch: Launch) throws(IsolatedDecodingFailure) -> DecodeWorker {
      var pair: [Int32] = [-1, -1]
      guard
        socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
          == 0
      else {
        throw .workerUnavailable(reason: "no socket pair (\(String(cString: strerror(errno))))")
      }
      var arguments = [
        launch.executable, "--address-space", "\(launch.addressSpaceBytes)", "--cpu-seconds",
        "\(launch.cpuSecondsPerLife)",
      ]
      if launch.allowsTestHooks { arguments.append("--test-hooks") }
      // Nothing of the host's environment: the Swift runtime's crash backtracer off (it would
      // start a process of its own), few malloc arenas (each reserves 64 MiB of address space).
      var environment = ["SWIFT_BACKTRACE=enable=no", "MALLOC_ARENA_MAX=2"]
      if let path = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] {
        environment.append("LD_LIBRARY_PATH=\(path)")
      }
      var processID: pid_t = 0
      let status = withCStrings(arguments) { argv in
        withCStrings(environment) { envp in
          dex_worker_spawn(launch.executable, argv, envp, pair[1], &processID)
        }
      }
      close(pair[1])
      guard status == 0 else {
        close(pair[0])
        throw .workerUnavailable(
          reason: "\(launch.executable) could not be started (\(String(cString: strerror(status))))"
        )
      }
      _ = dex_worker_limit(
        processID, UInt64(launch.addressSpaceBytes), UInt64(launch.cpuSecondsPerLife))
      return DecodeWorker(processID: processID, descriptor: pair[0])
    }

    /// Whether the worker has sent anything beyond its answers (or closed its socket): a worker
    /// that did is not lent again, so that bytes it sent ahead can never be read as the answer
    /// to another caller's request.
    func hasUnreadOutput() -> Bool {
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      return poll(&entry, 1, 0) != 0
    }

    /// Whether the process still runs (a worker that died while idle is reaped here).
    func isRunning() -> Bool {
      var status: Int32 = 0
      let result = waitpid(processID, &status, WNOHANG)
      return result == 0
    }

    /// Kills the worker and collects it.
    func terminate() {
      kill(processID, SIGKILL)
      _ = reap()
      close(descriptor)
    }

    /// Waits for the worker to end (it closed its socket, so it is ending; SIGKILL after a
    /// second) and says how; closes the socket.
    func reapAfterClose() -> IsolatedDecodingFailure {
      var status: Int32 = 0
      var result: pid_t = 0
      for _ in 0..<100 {
        result = waitpid(processID, &status, WNOHANG)
        if result != 0 { break }
        usleep(10_000)
      }
      if result == 0 {
        kill(processID, SIGKILL)
        status = reap() ?? 0
        result = processID
      }
      close(descriptor)
      guard result == processID else { return .workerExited(status: -1) }  // reaped elsewhere
      return Self.failure(fromWaitStatus: status)
    }

    /// Blocks until the process has ended; its wait status, or `nil` when it was reaped
    /// elsewhere (a host that ignores SIGCHLD).
    @discardableResult
    private func reap() -> Int32? {
      var status: Int32 = 0
      while true {
        let result = waitpid(processID, &status, 0)
        if result == processID { return status }
        if result < 0, errno == EINTR { continue }
        return nil
      }
    }

    static func failure(fromWaitStatus status: Int32) -> IsolatedDecodingFailure {
      let signal = status & 0x7F
      if signal == 0 { return .workerExited(status: (status >> 8) & 0xFF) }
      if signal == SIGXCPU { return .cpuTimeExceeded }
      return .workerCrashed(signal: signal)
    }
  }

  /// Runs `body` with `strings` as a NULL-terminated C array.
  private func withCStrings<R>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R
  ) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
  }
#endif
