import NIOConcurrencyHelpers

/// One request's place in ``InFlightLimit``, released when its handler returns, or, for a
/// streamed reply, handed to the response body and released when the stream ends: a stream
/// holds its slot (and so bounds the upstream calls open at once) for as long as it runs.
final class InFlightSlot: Sendable {
  /// The slot of the request being handled, if any.
  @TaskLocal static var current: InFlightSlot?

  private let state: NIOLockedValueBox<(handedOff: Bool, released: Bool)>
  private let leave: @Sendable () -> Void

  init(leave: @escaping @Sendable () -> Void) {
    self.leave = leave
    state = NIOLockedValueBox((false, false))
  }

  /// Releases the slot when the handler returns, unless it was handed off.
  func handlerReturned() {
    let release = state.withLockedValue { state -> Bool in
      guard !state.handedOff, !state.released else { return false }
      state.released = true
      return true
    }
    if release { leave() }
  }

  /// Keeps the slot past the handler's return, held by the returned lease.
  func handOff() -> Lease {
    state.withLockedValue { $0.handedOff = true }
    return Lease(self)
  }

  /// Releases the slot, once.
  fileprivate func release() {
    let release = state.withLockedValue { state -> Bool in
      guard !state.released else { return false }
      state.released = true
      return true
    }
    if release { leave() }
  }

  /// A handed-off slot: released by ``release()`` when the stream ends, or when the lease is
  /// freed, so that a response whose body is never written (the client left before its head)
  /// does not keep the slot.
  final class Lease: Sendable {
    private let slot: InFlightSlot

    fileprivate init(_ slot: InFlightSlot) {
      self.slot = slot
    }

    /// Releases the slot (once, whoever asks first).
    func release() { slot.release() }

    deinit { slot.release() }
  }
}
