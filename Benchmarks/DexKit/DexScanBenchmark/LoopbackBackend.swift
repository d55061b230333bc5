import DexCloudServer
import DexKit
import DexProxy
import DexProxyTesting
import Foundation
import Logging

/// The cloud pass over real loopback HTTP, for the "final result" timing: `DexVisionService`
/// (signed `ApiClient`) → `dex-proxy` (in-process, 127.0.0.1) → DexProxyTesting's stub
/// OpenAI-compatible upstream (in-process, 127.0.0.1) that answers a clean chat completion at
/// once.
struct LoopbackBackend: Sendable {
  let vision: DexVisionService
  private let upstream: StubUpstream
  private let proxy: LoopbackServer.Running

  struct StartFailed: Error {}

  /// The stub model's answer: a realistic identification.
  static let identification = """
    {"commonName":"Sunset over the sea","category":"object","scientificName":"",\
    "summary":"A low sun over calm water.","facts":["Golden hour light"],"rarity":"Common",\
    "confidence":0.9}
    """

  static func start() async throws -> LoopbackBackend {
    var quiet = Logger(label: "bench")
    quiet.logLevel = .critical

    let upstream = StubUpstream()
    upstream.setFallback(.content(identification))
    try await upstream.start()
    guard let bootstrapKey = SigningSecret("benchmark-bootstrap-key-5d0c2a"),
      let serverSecret = SigningSecret("benchmark-server-secret-0f9e8d7c6b5a4938"),
      let serverKey = ServerKey(id: "k1", secret: serverSecret),
      let upstreamURL = URL(string: "http://127.0.0.1:\(upstream.port)/v1/")
    else {
      await upstream.stop()
      throw StartFailed()
    }
    let configuration = ProxyConfiguration.unthrottled(
      bootstrapKey: bootstrapKey, serverKey: serverKey, upstreamURL: upstreamURL)
    let proxy: LoopbackServer.Running
    do {
      proxy = try await LoopbackServer.startProxy(configuration, logger: quiet)
    } catch {
      await upstream.stop()
      throw error
    }
    guard let baseURL = URL(string: "http://127.0.0.1:\(proxy.port)") else {
      await proxy.stop()
      await upstream.stop()
      throw StartFailed()
    }
    let client = ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: baseURL, bootstrapKey: bootstrapKey, subject: "benchmark"),
      logger: quiet)
    return LoopbackBackend(
      vision: DexVisionService(client: client, logger: quiet), upstream: upstream,
      proxy: proxy)
  }

  func stop() async {
    await proxy.stop()
    await upstream.stop()
  }
}
