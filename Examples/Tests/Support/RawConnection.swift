import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A plain TCP connection to 127.0.0.1 from a chosen loopback source address (the whole
/// 127.0.0.0/8 is loopback on Linux), for what `URLSession` cannot do: many client addresses,
/// half-sent requests, bytes trickled one at a time.
public struct RawConnection: Sendable {
  /// A socket call that failed.
  public struct Failed: Error, CustomStringConvertible, Sendable {
    /// What failed, with its errno.
    public var description: String

    /// A failure described by `description`.
    public init(description: String) {
      self.description = description
    }
  }

  /// The connection's socket.
  public let descriptor: Int32

  /// Connects to 127.0.0.1:`port` from `source` (an address in 127.0.0.0/8), with `timeout`
  /// on every read.
  public init(port: Int, source: String = "127.0.0.1", timeout: Duration = .seconds(10)) throws {
    let descriptor = Self.tcpSocket()
    guard descriptor >= 0 else { throw Failed(description: "socket: errno \(errno)") }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
      _ = Glibc.close(descriptor)
      throw Failed(description: "bad source address \(source)")
    }
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_port = in_port_t(UInt16(port).bigEndian)
    _ = inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
    var wait = timeval(
      tv_sec: Int(timeout.components.seconds), tv_usec: 0)
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    let connected =
      bound == 0
      ? withUnsafePointer(to: &remote) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      } : -1
    guard connected == 0 else {
      let code = errno
      _ = Glibc.close(descriptor)
      throw Failed(description: "bind/connect from \(source): errno \(code)")
    }
    self.descriptor = descriptor
  }

  /// A new IPv4 TCP socket (negative on failure).
  public static func tcpSocket() -> Int32 {
    #if canImport(Glibc)
      socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      socket(AF_INET, SOCK_STREAM, 0)
    #endif
  }

  /// Sends `bytes`; `false` when the peer has closed the connection.
  @discardableResult
  public func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Sends `text` as UTF-8.
  @discardableResult
  public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  /// What one read returns: bytes, the peer's close, or nothing within the read timeout.
  public enum Read: Equatable, Sendable {
    case bytes([UInt8])
    case closed
    case timedOut
  }

  /// One read of up to 64 KiB.
  public func read() -> Read {
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    if count > 0 { return .bytes(Array(buffer[..<count])) }
    if count == 0 || errno == ECONNRESET { return .closed }
    return .timedOut
  }

  /// Whether the peer has closed the connection, waiting at most `milliseconds` for it.
  public func isClosed(within milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return false }
    var byte: UInt8 = 0
    let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return count == 0 || (count < 0 && errno == ECONNRESET)
  }

  /// The status code of the response read from the connection (its first line), or `nil` when
  /// the connection closed or timed out first.
  public func status() -> Int? {
    var received: [UInt8] = []
    while !received.contains(UInt8(ascii: "\n")) {
      guard case .bytes(let bytes) = read() else { return nil }
      received += bytes
    }
    let line = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? ""
    let parts = line.split(separator: " ")
    return parts.count > 1 ? Int(parts[1]) : nil
  }

  /// Closes the socket.
  public func close() { _ = Glibc.close(descriptor) }

  /// What a server answers to `text` sent on a new connection and never finished: bytes, its
  /// close, or nothing before `timeout`.
  public static func readAfterSending(
    _ text: String, port: Int, timeout: Duration
  ) throws
    -> Read
  {
    let connection = try RawConnection(port: port, timeout: timeout)
    defer { connection.close() }
    connection.send(text)
    return connection.read()
  }

  /// The status a server answers `request` (sent byte for byte on a new connection, off the
  /// cooperative pool) with, or `nil` when the connection closed or timed out first.
  public static func status(answering request: String, port: Int) async throws -> Int? {
    try await offThePool {
      let connection = try RawConnection(port: port)
      defer { connection.close() }
      guard connection.send(request) else { return nil }
      return connection.status()
    }
  }

  /// Sends `head`, then one byte every 200 ms, up to `count`: after how many bytes the server
  /// closed the connection (0 if it took not even the head), `nil` if it never did.
  public static func bytesTrickledBeforeClose(
    head: String, count: Int = 100, port: Int
  ) throws
    -> Int?
  {
    let connection = try RawConnection(port: port, timeout: .seconds(15))
    defer { connection.close() }
    guard connection.send(head) else { return 0 }
    for index in 1...count {
      guard connection.send("A"), !connection.isClosed(within: 200) else { return index }
    }
    return nil
  }
}

/// Runs blocking socket work on a thread of its own, off Swift's cooperative pool (two threads
/// on a two-core host), so that the server under test keeps its threads.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread { continuation.resume(with: Result { try work() }) }
    thread.start()
  }
}
