#if os(Linux)
  import Foundation
  import Glibc

  /// One end of the stream socket between ``IsolatedImageDecoder`` and a worker: whole
  /// messages written and read, with an optional deadline and a cancellation check (the
  /// decoder's side), never raising SIGPIPE when the other end is gone.
  package struct DecodeWorkerChannel: Sendable {
    /// Why a transfer stopped.
    package enum Failure: Error, Sendable, Equatable {
      /// The other end closed (or reset) the connection.
      case closed
      /// The deadline passed first.
      case timedOut
      /// `isCancelled` said so first.
      case cancelled
      /// The message broke the protocol (a header too long, or not the expected JSON).
      case malformed(String)
      /// A system call failed with this errno.
      case system(Int32)
    }

    /// The socket's descriptor.
    package let descriptor: Int32
    /// When transfers give up; `nil` waits for ever (the worker's side).
    package var deadline: ContinuousClock.Instant?
    /// Polled about every 50 ms while waiting.
    package var isCancelled: @Sendable () -> Bool = { false }

    package init(descriptor: Int32, deadline: ContinuousClock.Instant? = nil) {
      self.descriptor = descriptor
      self.deadline = deadline
    }

    /// Waits until the socket is ready for `events`.
    private func wait(for events: Int16) throws(Failure) {
      while true {
        if isCancelled() { throw .cancelled }
        var timeout: Int32 = -1
        if let deadline {
          let left = deadline - ContinuousClock.now
          guard left > .zero else { throw .timedOut }
          let (seconds, attoseconds) = left.components
          timeout = Int32(min(50, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
        } else if Task.isCancelled {
          timeout = 50
        }
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        let ready = poll(&entry, 1, timeout)
        if ready < 0 {
          if errno == EINTR { continue }
          throw .system(errno)
        }
        if ready > 0 { return }
      }
    }

    /// Writes every byte of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
      guard let base = bytes.baseAddress else { return }
      var done = 0
      while done < bytes.count {
        try wait(for: Int16(POLLOUT))
        let sent = Glibc.send(
          descriptor, base + done, bytes.count - done, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        if sent < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          if errno == EPIPE || errno == ECONNRESET { throw .closed }
          throw .system(errno)
        }
        done += sent
      }
    }

    /// Fills `buffer` completely.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) {
      guard let base = buffer.baseAddress else { return }
      var done = 0
      while done < buffer.count {
        try wait(for: Int16(POLLIN))
        let got = recv(descriptor, base + done, buffer.count - done, Int32(MSG_DONTWAIT))
        if got < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          if errno == ECONNRESET { throw .closed }
          throw .system(errno)
        }
        if got == 0 { throw .closed }
        done += got
      }
    }

    /// Sends `header` as JSON behind its length, then each payload in turn.
    package func send<Header: Encodable>(_ header: Header, payloads: [Data]) throws(Failure) {
      let json: Data
      do { json = try JSONEncoder().encode(header) } catch {
        throw .malformed("the header could not be encoded")
      }
      guard json.count <= DecodeWorkerMessage.headerLimit else {
        throw .malformed("the header is over \(DecodeWorkerMessage.headerLimit) bytes")
      }
      let length = UInt32(json.count)
      let prefix = Data((0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) })
      for part in [prefix, json] + payloads {
        let written: Result<Void, Failure> = part.withUnsafeBytes { raw in
          do throws(Failure) { return .success(try write(raw)) } catch { return .failure(error) }
        }
        try written.get()
      }
    }

    /// Reads one header of at most ``DecodeWorkerMessage/headerLimit`` bytes.
    package func receive<Header: Decodable>(_ type: Header.Type) throws(Failure) -> Header {
      let prefix = try receivePayload(count: 4)
      let count = prefix.reversed().reduce(0) { $0 << 8 | Int($1) }
      guard count > 0, count <= DecodeWorkerMessage.headerLimit else {
        throw .malformed("a header of \(count) bytes")
      }
      let json = Data(try receivePayload(count: count))
      do { return try JSONDecoder().decode(type, from: json) } catch {
        throw .malformed("the header is not the expected JSON")
      }
    }

    /// Reads a payload of exactly `count` bytes (the caller has bounded `count`).
    package func receivePayload(count: Int) throws(Failure) -> [UInt8] {
      guard count > 0 else { return [] }
      var failure: Failure?
      let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        do throws(Failure) {
          try read(into: UnsafeMutableRawBufferPointer(buffer))
          initialized = count
        } catch {
          failure = error
          initialized = 0
        }
      }
      if let failure { throw failure }
      return bytes
    }
  }
#endif
