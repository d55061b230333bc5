import Hummingbird

/// The per-request context of the proxy: Hummingbird's core storage plus the client's IP
/// address, which keys the rate limit for requests without a valid session.
@available(macOS 14, iOS 17, tvOS 17, *)
public struct ProxyRequestContext: RequestContext {
  /// Hummingbird's per-request storage.
  public var coreContext: CoreRequestContextStorage
  /// The remote IP address, when the channel has one.
  public let remoteIP: String?

  /// Creates the context for one request on `source.channel`.
  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteIP = source.channel.remoteAddress?.ipAddress
  }
}
