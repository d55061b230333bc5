import AsyncHTTPClient
import DexCloud
import Foundation
import HTTPSupport
import NIOCore
import NIOHTTP1
import NIOPosix

/// DexCloud's ``DexCloud/HTTPTransport`` on AsyncHTTPClient, the transport `dex-proxy` calls its
/// upstream with.
///
/// The reply's body is read as it streams and the call fails as soon as it passes
/// ``maximumResponseBytes`` (a `Content-Length` over it fails before any byte is read), so a
/// hostile or broken upstream cannot make the proxy buffer more than that. One deadline covers
/// the whole call, body included; cancelling the calling task cancels the request.
public struct AsyncHTTPClientTransport: HTTPTransport {
  /// The largest response body accepted (default 2 MiB).
  public let maximumResponseBytes: Int
  let client: HTTPClient

  /// The client `dex-proxy` calls its upstream with unless it is given another: AsyncHTTPClient
  /// on the process-wide event loops, living as long as the process (so it needs no shutdown),
  /// with `HTTPClient.shared`'s configuration but two settings: a connection that cannot be
  /// made is not retried, and a connection attempt gives up after ``connectTimeout``.
  /// `HTTPClient.shared` retries a refused or failed connection until the call's deadline, so a
  /// misconfigured or down upstream held every caller for the whole upstream timeout before its
  /// 502; here the 502 comes at once. The trade-off: when a connection attempt fails, the calls
  /// waiting for a connection to that host at that moment fail with it (a client may retry).
  public static let upstreamClient: HTTPClient = {
    var configuration = HTTPClient.Configuration.singletonConfiguration
    configuration.timeout.connect = .nanoseconds(connectTimeout.nanoseconds)
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(
      eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
      configuration: configuration)
  }()

  /// How long ``upstreamClient`` waits for a TCP (and TLS) connection to the upstream.
  public static let connectTimeout: Duration = .seconds(10)

  /// Creates a transport on `client` (``upstreamClient`` by default).
  public init(client: HTTPClient = Self.upstreamClient, maximumResponseBytes: Int = 2 << 20) {
    self.client = client
    self.maximumResponseBytes = max(1, maximumResponseBytes)
  }

  /// See ``DexCloud/HTTPTransport/send(_:timeout:)``.
  ///
  /// - Throws: ``DexCloud/DexCloudError`` with kind `timedOut`, `cancelled`, `payloadTooLarge`
  ///   (the reply passed ``maximumResponseBytes``) or `network`.
  public func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse
  {
    try Task.checkCancellation()
    let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
    do {
      let response = try await client.execute(Self.outgoing(request), deadline: deadline)
      let body = try await response.body.collect(upTo: maximumResponseBytes)
      return TransportResponse(
        statusCode: Int(response.status.code), headers: Self.headers(of: response),
        body: Data(body.readableBytesView))
    } catch {
      throw mapped(error)
    }
  }

  static func outgoing(_ request: TransportRequest) -> HTTPClientRequest {
    var outgoing = HTTPClientRequest(url: request.url.absoluteString)
    outgoing.method = HTTPMethod(rawValue: request.method)
    for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
    if !request.body.isEmpty {
      outgoing.body = .bytes(ByteBuffer(bytes: request.body))
    }
    return outgoing
  }

  static func headers(of response: HTTPClientResponse) -> [String: String] {
    var headers: [String: String] = [:]
    for header in response.headers { headers[header.name] = header.value }
    return headers
  }

  /// `error` as the ``DexCloud/DexCloudError`` the transport throws.
  func mapped(_ error: any Error) -> DexCloudError {
    switch error {
    case let error as DexCloudError:
      return error
    case is NIOTooManyBytesError:
      return DexCloudError(
        kind: .payloadTooLarge, message: "The response body is over \(maximumResponseBytes) bytes.")
    case let error as HTTPClientError where error == .deadlineExceeded:
      return DexCloudError(kind: .timedOut, message: "The upstream did not answer in time.")
    case is CancellationError:
      return DexCloudError(kind: .cancelled, message: "The request was cancelled.")
    case let error as HTTPClientError where error == .cancelled:
      return DexCloudError(kind: .cancelled, message: "The request was cancelled.")
    default:
      return DexCloudError(kind: .network, message: "The connection failed (\(type(of: error))).")
    }
  }
}
