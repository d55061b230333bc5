import DexCloud
import DexCloudServer
import DexProxy
import DexProxyTesting
import Foundation
import Logging

/// The figures of one run (one store).
struct Run: Sendable {
  var store: String
  var requests: Int
  var accepted: Int
  var otherStatuses: [Int: Int]
  var upstreamCalls: Int
  var seconds: Double
  var latencies: [Double]
  var replayTarget: String
  var replaysRefused: Int

  var lost: Int { requests - accepted }
  var throughput: Double { Double(requests) / seconds }
  /// No request lost, none sent upstream twice, every replay refused.
  var healthy: Bool { lost == 0 && upstreamCalls == requests && replaysRefused == accepted }

  func percentile(_ fraction: Double) -> Double {
    guard !latencies.isEmpty else { return .nan }
    let last = latencies.count - 1
    return latencies[min(last, max(0, Int((Double(last) * fraction).rounded())))]
  }
}

/// One request as sent: enough to send it again unchanged.
struct Sent: Sendable {
  var instance: Int
  var headers: [String: String]
  var body: Data
}

struct LoadTestFailed: Error, CustomStringConvertible {
  var description: String
}

/// Two proxies, one stub upstream, `clients` concurrent clients sending `requests` signed
/// `/vision` requests between them.
struct LoadTest: Sendable {
  var requests: Int
  var clients: Int
  let bootstrapKey: SigningSecret
  let serverKey: ServerKey
  /// A small JPEG-like image, base64: the stub upstream never decodes it.
  let image = Data(
    [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: UInt8(0x5A), count: 4096) + [0xFF, 0xD9]
  ).base64EncodedString()
  let transport = URLSessionTransport()
  let logger: Logger = {
    var quiet = Logger(label: "dex-proxy-load")
    quiet.logLevel = .critical
    return quiet
  }()

  init(requests: Int, clients: Int) throws {
    guard let bootstrapKey = SigningSecret("load-test-bootstrap-key-5d21"),
      let serverSecret = SigningSecret("load-test-server-secret-0123456789abcdef"),
      let serverKey = ServerKey(id: "k1", secret: serverSecret)
    else { throw LoadTestFailed(description: "could not build the test keys") }
    self.requests = requests
    self.clients = clients
    self.bootstrapKey = bootstrapKey
    self.serverKey = serverKey
  }

  private func send(
    _ port: Int, _ path: String, headers: [String: String], body: Data
  ) async throws -> TransportResponse {
    var all = headers
    all["content-type"] = "application/json"
    guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
      throw LoadTestFailed(description: "bad URL")
    }
    return try await transport.send(
      TransportRequest(method: "POST", url: url, headers: all, body: body), timeout: .seconds(30))
  }

  /// Starts the stub and two proxies (sharing `postgres` when given), runs the load, replays
  /// every accepted request once, and stops them all.
  func measure(store: String, postgres: PostgresStoreConfiguration?) async throws -> Run {
    let upstream = StubUpstream()
    try await upstream.start()
    guard let upstreamURL = URL(string: "http://127.0.0.1:\(upstream.port)/v1/") else {
      throw LoadTestFailed(description: "bad upstream URL")
    }
    let configuration = ProxyConfiguration(
      bootstrapKeys: [bootstrapKey], keyring: ServerKeyring(current: serverKey),
      upstream: UpstreamConfiguration(
        baseURL: upstreamURL, model: "gpt-load", apiKey: nil, timeout: .seconds(30)),
      // The limits are not what is measured here: high enough never to refuse, but every budget
      // is on, so each call is counted against the subject, the address and the global budget
      // (three more store operations per call with PostgreSQL) and each session against the
      // address's hourly sessions.
      rateLimit: RateLimit(burst: 1_000_000, refillPerSecond: 1_000_000), postgres: postgres,
      dailyQuota: 1_000_000_000, addressDailyQuota: 1_000_000_000, dailyBudget: 1_000_000_000,
      sessionsPerAddressPerHour: 1_000_000_000, maximumInFlight: 4096, servesMetrics: true)
    do {
      let run = try await LoopbackServer.withProxies(configuration, loggers: [logger, logger]) {
        ports in
        try await measure(
          store: store, ports: ports, upstream: upstream, crossInstance: postgres != nil)
      }
      await upstream.stop()
      return run
    } catch {
      await upstream.stop()
      throw error
    }
  }

  /// The load and the replays against two running instances at `ports`.
  private func measure(
    store: String, ports: [Int], upstream: StubUpstream, crossInstance: Bool
  ) async throws -> Run {

    // One session per client, each from the instance it starts on.
    var sessions: [AuthTokenResponse] = []
    for client in 0..<clients {
      let body = try JSONEncoder().encode(AuthTokenRequest(subject: "load-client-\(client)"))
      let response = try await send(
        ports[client % 2], "/auth_token",
        headers: SignedHeaders.post("/auth_token", body: body, secret: bootstrapKey), body: body
      )
      guard response.statusCode == 200 else {
        throw LoadTestFailed(description: "\(store): /auth_token answered \(response.statusCode)")
      }
      sessions.append(try JSONDecoder().decode(AuthTokenResponse.self, from: response.body))
    }

    let started = ContinuousClock.now
    let results = try await withThrowingTaskGroup(
      of: [(status: Int, seconds: Double, sent: Sent)].self
    ) { group in
      for client in 0..<clients {
        let share = requests / clients + (client < requests % clients ? 1 : 0)
        let session = sessions[client]
        group.addTask {
          var local: [(status: Int, seconds: Double, sent: Sent)] = []
          local.reserveCapacity(share)
          for index in 0..<share {
            let body = try JSONEncoder().encode(
              VisionRequest.ask(image: image, question: "load \(client)-\(index)"))
            let headers = SignedHeaders.post(
              "/vision", body: body, secret: session.sessionSecret, session: session.sessionID)
            let instance = (client + index) % 2
            let begin = ContinuousClock.now
            let response = try await send(
              ports[instance], "/vision", headers: headers, body: body)
            let elapsed = ContinuousClock.now - begin
            let seconds =
              Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            local.append(
              (
                response.statusCode, seconds,
                Sent(instance: instance, headers: headers, body: body)
              ))
          }
          return local
        }
      }
      var all: [(status: Int, seconds: Double, sent: Sent)] = []
      for try await local in group { all.append(contentsOf: local) }
      return all
    }
    let wall = ContinuousClock.now - started
    let upstreamCalls = upstream.received.count

    // Every accepted request once more, unchanged, a few at a time.
    let accepted = results.filter { $0.status == 200 }.map { $0.sent }
    let refused = try await withThrowingTaskGroup(of: Int.self) { group in
      for client in 0..<clients {
        group.addTask {
          var count = 0
          for sent in stride(from: client, to: accepted.count, by: clients).map({ accepted[$0] }) {
            let target = crossInstance ? 1 - sent.instance : sent.instance
            let response = try await send(
              ports[target], "/vision", headers: sent.headers, body: sent.body)
            let replayed = String(decoding: response.body, as: UTF8.self)
              .contains("\"replayed_request\"")
            if response.statusCode == 401, replayed { count += 1 }
          }
          return count
        }
      }
      return try await group.reduce(0, +)
    }

    var others: [Int: Int] = [:]
    for result in results where result.status != 200 { others[result.status, default: 0] += 1 }
    return Run(
      store: store, requests: requests, accepted: accepted.count, otherStatuses: others,
      upstreamCalls: upstreamCalls,
      seconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18,
      latencies: results.map { $0.seconds }.sorted(),
      replayTarget: crossInstance ? "other instance" : "same instance", replaysRefused: refused)
  }
}
