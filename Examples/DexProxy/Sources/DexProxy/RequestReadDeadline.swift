import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow: the read timeout for headers and body, and the
/// idle timeout between requests (`DEX_PROXY_READ_TIMEOUT`, see
/// ``ProxyConfiguration/readTimeout``).
///
/// An idle connection (just opened, or its last response sent) must deliver a request's
/// headers within the timeout, and a request's body must arrive whole within the timeout from
/// its headers. A timer that runs to the end, not a gap between reads, so a client trickling one
/// byte at a time cannot hold a connection, a request slot and its buffers for longer than that.
/// While the proxy works on a request (the upstream call) no timer runs; the upstream has its
/// own timeout.
final class RequestReadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let timeout: TimeAmount
  private var timer: Scheduled<Void>?
  /// A request's head has arrived and its end not yet.
  private var reading = false
  /// Requests read whole whose response has not ended yet.
  private var unanswered = 0

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { arm(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
  }

  func channelActive(context: ChannelHandlerContext) {
    if timer == nil, !reading, unanswered == 0 { arm(context) }
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      reading = true
      arm(context)  // the body's own deadline
    case .body:
      break
    case .end:
      reading = false
      unanswered += 1
      disarm()
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) {
      unanswered = max(0, unanswered - 1)
      if unanswered == 0, !reading { arm(context) }
    }
    context.write(data, promise: promise)
  }

  private func arm(_ context: ChannelHandlerContext) {
    disarm()
    let loop = context.eventLoop.assumeIsolated()
    timer = loop.scheduleTask(in: timeout) { [weak self] in
      guard let self else { return }
      self.timer = nil
      context.close(promise: nil)
    }
  }

  private func disarm() {
    timer?.cancel()
    timer = nil
  }
}
