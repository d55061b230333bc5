import NIOConcurrencyHelpers

/// One request's place in ``InFlightLimit``, released when its handler returns, or, for a
/// streamed reply, handed to the response body and released when the stream ends: a stream
/// holds its slot (and so bounds the upstream calls open at once) for as long as it runs.
final class InFlightSlot: Sendable {
  /// The slot of the request being handled, if any.
  @TaskLocal static var current: InFlightSlot?

  private struct State {
    var handedOff = false
    var released = false
    /// What else the release gives back, in the order it was taken.
    var alsoLeave: [@Sendable () -> Void] = []
  }
  private let state = NIOLockedValueBox(State())
  private let leave: @Sendable () -> Void

  init(leave: @escaping @Sendable () -> Void) {
    self.leave = leave
  }

  /// Gives back `action` too when the slot is released (at once if it already was): a count
  /// the request took after it was admitted, such as its session's.
  func alsoOnRelease(_ action: @escaping @Sendable () -> Void) {
    let now = state.withLockedValue { state -> Bool in
      guard !state.released else { return true }
      state.alsoLeave.append(action)
      return false
    }
    if now { action() }
  }

  /// Releases the slot when the handler returns, unless it was handed off.
  func handlerReturned() {
    let actions = state.withLockedValue { state -> [@Sendable () -> Void]? in
      guard !state.handedOff, !state.released else { return nil }
      state.released = true
      return state.alsoLeave
    }
    if let actions { finish(actions) }
  }

  private func finish(_ actions: [@Sendable () -> Void]) {
    for action in actions.reversed() { action() }
    leave()
  }

  /// Keeps the slot past the handler's return, held by the returned lease.
  func handOff() -> Lease {
    state.withLockedValue { $0.handedOff = true }
    return Lease(self)
  }

  /// Releases the slot, once.
  fileprivate func release() {
    let actions = state.withLockedValue { state -> [@Sendable () -> Void]? in
      guard !state.released else { return nil }
      state.released = true
      return state.alsoLeave
    }
    if let actions { finish(actions) }
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
