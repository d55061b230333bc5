import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow: the read timeout for headers and body, the
/// idle timeout between requests, and the time a response may wait on a client that stopped
/// reading it (dex-proxy's `DEX_PROXY_READ_TIMEOUT`, PixScan's `PixScanLimits.readTimeout`).
///
/// An idle connection (just opened, or its last response sent) must deliver a request's
/// headers within the timeout, and a request's body must arrive whole within the timeout from
/// its headers. A timer that runs to the end, not a gap between reads, so a client trickling one
/// byte at a time cannot hold a connection, a request slot and its buffers for longer than that.
/// While the server works on a request no timer runs (dex-proxy's upstream call has its own
/// timeout). Add one per connection, in a Hummingbird server's `additionalChannelHandlers`.
///
/// Writing has its deadline too: while a response waits on its client (the channel is
/// unwritable, so the handler writing it waits, or the response's end is queued but not yet
/// sent), the client must take at least 32 KiB of it (or all of it) within every timeout, or the
/// connection is closed, which fails the waiting write. A client that stops reading cannot hold
/// its handler, or the connection, for longer than that; a slow client that keeps reading is not
/// cut off.
///
/// A server may give some requests less time: `bodyTimeout` picks a request's body deadline from
/// its raw path (dex-proxy gives every path but `/vision` a few seconds: an `/auth_token` body
/// is a few hundred bytes), and `connectTimeout` bounds the wait for a new connection's first
/// headers (a connection that sends nothing is closed early).
public final class RequestReadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
  /// Request parts, read as they pass.
  public typealias InboundIn = HTTPRequestPart
  /// Request parts, passed on unchanged.
  public typealias InboundOut = HTTPRequestPart
  /// Response parts, watched for the end of a response.
  public typealias OutboundIn = HTTPResponsePart
  /// Response parts, passed on unchanged.
  public typealias OutboundOut = HTTPResponsePart

  private let timeout: TimeAmount
  private let connectTimeout: TimeAmount
  private let bodyTimeout: @Sendable (_ path: Substring) -> TimeAmount
  private var timer: Scheduled<Void>?
  /// Runs while a response waits on its client (see ``isWaitingOnClient(_:)``).
  private var stallTimer: Scheduled<Void>?
  /// Responses whose end has been queued and not yet sent.
  private var endsUnsent = 0
  /// The least a client must take of what waits for it within each timeout (or all of it).
  static let minimumProgressBytes = 32 << 10
  /// A request's head has arrived and its end not yet.
  private var reading = false
  /// Requests whose head has arrived and whose response has not ended yet.
  private var unanswered = 0

  /// A handler that closes its connection when a request takes longer than `timeout` to arrive.
  ///
  /// - Parameters:
  ///   - connectTimeout: the deadline for a new connection's first headers (default `timeout`).
  ///   - bodyTimeout: a request's body deadline, from its raw path without the query (default
  ///     `timeout` for every path); never more than `timeout`.
  public init(
    timeout: TimeAmount, connectTimeout: TimeAmount? = nil,
    bodyTimeout: (@Sendable (_ path: Substring) -> TimeAmount)? = nil
  ) {
    self.timeout = timeout
    self.connectTimeout = min(connectTimeout ?? timeout, timeout)
    self.bodyTimeout = bodyTimeout ?? { _ in timeout }
  }

  /// Starts the idle deadline when added to an open connection.
  public func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { arm(context, connectTimeout) }
  }

  /// Stops any deadline.
  public func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
    stopStallTimer()
  }

  /// Starts the idle deadline when the connection opens.
  public func channelActive(context: ChannelHandlerContext) {
    if timer == nil, !reading, unanswered == 0 { arm(context, connectTimeout) }
    context.fireChannelActive()
  }

  /// Stops any deadline when the connection closes.
  public func channelInactive(context: ChannelHandlerContext) {
    disarm()
    stopStallTimer()
    context.fireChannelInactive()
  }

  /// Starts the write deadline when the outbound buffer fills (the client stopped reading, or
  /// reads slowly), stops it when the client drains it and no response's end waits.
  public func channelWritabilityChanged(context: ChannelHandlerContext) {
    watchWriting(context)
    context.fireChannelWritabilityChanged()
  }

  /// Whether a response waits on the client: the channel is unwritable, or a response's end is
  /// queued and not yet sent (what is queued is below the channel's high watermark, but the
  /// socket's buffers are full).
  private func isWaitingOnClient(_ context: ChannelHandlerContext) -> Bool {
    !context.channel.isWritable || endsUnsent > 0
  }

  /// Runs the write deadline while a response waits on the client, and only then.
  private func watchWriting(_ context: ChannelHandlerContext) {
    if !isWaitingOnClient(context) {
      stopStallTimer()
    } else if stallTimer == nil {
      armStallTimer(context, pending: Self.pendingBytes(context))
    }
  }

  /// Closes the connection `timeout` from now unless, by then, the client has taken at least
  /// ``minimumProgressBytes`` of the `pending` bytes waiting for it (or all of them): then it
  /// waits again from there.
  private func armStallTimer(_ context: ChannelHandlerContext, pending: Int?) {
    let loop = context.eventLoop.assumeIsolated()
    stallTimer = loop.scheduleTask(in: timeout) { [weak self] in
      guard let self else { return }
      self.stallTimer = nil
      guard self.isWaitingOnClient(context) else { return }
      let now = Self.pendingBytes(context)
      if let pending, let now, now <= pending - min(pending, Self.minimumProgressBytes) {
        self.armStallTimer(context, pending: now)
      } else {
        context.close(promise: nil)
      }
    }
  }

  /// The bytes the channel holds that the client has not taken yet, where the channel says.
  private static func pendingBytes(_ context: ChannelHandlerContext) -> Int? {
    try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)
  }

  /// Starts a request's deadline at its head, stops it at its end (unless its response has
  /// already ended: then the idle deadline starts).
  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      reading = true
      unanswered += 1  // counted from the head: a response may end before the body does
      // The body's own deadline, by the path as sent (an unusual spelling of a path given
      // longer gets the shorter one).
      let path = (head.path ?? "").prefix { $0 != "?" }
      arm(context, min(bodyTimeout(path), timeout))
    case .body:
      break
    case .end:
      reading = false
      if unanswered == 0 { arm(context, timeout) } else { disarm() }
    }
    context.fireChannelRead(data)
  }

  /// Starts the idle deadline once every request read has been answered and its response sent.
  public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?)
  {
    guard case .end = unwrapOutboundIn(data) else {
      context.write(data, promise: promise)
      return
    }
    // Counted once the response's end has been sent, not when it was queued: a large response
    // still on its way to a slow client is not idle (the write deadline watches it meanwhile).
    // Until then the write deadline watches it, however little is queued.
    let sent = context.eventLoop.makePromise(of: Void.self)
    sent.futureResult.assumeIsolated().whenComplete { [weak self] _ in
      guard let self else { return }
      self.endsUnsent = max(0, self.endsUnsent - 1)
      self.watchWriting(context)
      self.unanswered = max(0, self.unanswered - 1)
      if self.unanswered == 0, !self.reading, context.channel.isActive {
        self.arm(context, self.timeout)
      }
    }
    if let promise { sent.futureResult.cascade(to: promise) }
    endsUnsent += 1
    context.write(data, promise: sent)
    watchWriting(context)
  }

  private func arm(_ context: ChannelHandlerContext, _ deadline: TimeAmount) {
    disarm()
    let loop = context.eventLoop.assumeIsolated()
    timer = loop.scheduleTask(in: deadline) { [weak self] in
      guard let self else { return }
      self.timer = nil
      context.close(promise: nil)
    }
  }

  private func disarm() {
    timer?.cancel()
    timer = nil
  }

  private func stopStallTimer() {
    stallTimer?.cancel()
    stallTimer = nil
  }
}
