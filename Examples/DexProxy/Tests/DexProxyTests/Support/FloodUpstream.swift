import DexExamplesTestSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A one-request model server on a plain socket that answers 200 with a body of `bytes` bytes
/// (delimited by the close, no `Content-Length`) and counts how many bytes the kernel took from
/// it before the reader hung up or stopped reading: a bound on what the reader read, since
/// unlike a framework's writer a blocking `send` cannot queue bytes in memory.
final class FloodUpstream: @unchecked Sendable {
  let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var sent = 0
  private var finished = false

  init(bytes: Int) throws {
    let listener = RawConnection.tcpSocket()
    self.listener = listener
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    _ = inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && listen(listener, 4) == 0
          && getsockname(listener, $0, &length) == 0
      }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    guard ready else { throw RawConnection.Failed(description: "flood upstream: errno \(errno)") }
    let thread = Thread { [self] in serve(bytes) }
    thread.start()
  }

  /// Bytes the kernel accepted from the server so far.
  var bytesSent: Int { lock.withLock { sent } }
  /// Whether the server stopped writing (done, refused or timed out).
  var isFinished: Bool { lock.withLock { finished } }

  private func serve(_ total: Int) {
    defer {
      _ = Glibc.close(listener)
      lock.withLock { finished = true }
    }
    let client = accept(listener, nil, nil)
    guard client >= 0 else { return }
    defer { _ = Glibc.close(client) }
    var wait = timeval(tv_sec: 5, tv_usec: 0)
    _ = setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    // The request: headers, then Content-Length bytes of body.
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    func readMore() -> Bool {
      let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return false }
      received += buffer[..<count]
      return true
    }
    let separator = Array("\r\n\r\n".utf8)
    var headerEnd: Int?
    while headerEnd == nil {
      guard readMore() else { return }
      headerEnd = (0...max(0, received.count - 4)).first {
        received.count >= 4 && Array(received[$0..<$0 + 4]) == separator
      }
    }
    let head = String(decoding: received[..<(headerEnd ?? 0)], as: UTF8.self).lowercased()
    let contentLength =
      head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
      .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
      ?? 0
    while received.count < (headerEnd ?? 0) + 4 + contentLength {
      guard readMore() else { return }
    }
    let opening = Array(
      ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        + #"{"choices":[{"message":{"content":""#).utf8)
    guard write(client, opening) else { return }
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
    var written = 0
    while written < total {
      let part = min(chunk.count, total - written)
      guard write(client, Array(chunk[..<part])) else { return }
      written += part
      lock.withLock { sent += part }
    }
  }

  private func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes {
        send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }
}
