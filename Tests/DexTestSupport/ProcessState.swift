import Foundation

#if os(Linux) || os(macOS)

  /// What a test can tell of a process by its id, without being its parent.
  public enum ProcessState {
    /// Whether process `pid` is running: it exists and has not ended. On Linux, read from its
    /// state in `/proc`, a process that ended and waits to be reaped (a zombie) is not live; on
    /// macOS (`kill(pid, 0)`, not compiled here) a zombie counts as live.
    public static func isLive(_ pid: pid_t) -> Bool {
      #if os(Linux)
        guard
          let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
      #else
        return kill(pid, 0) == 0
      #endif
    }
  }
#endif
