// A bounded load test of dex-proxy on loopback: two proxy instances in front of one stub
// upstream (DexProxyTesting's StubUpstream, which answers at once), driven by a few concurrent
// clients that each take a session and send signed /vision requests alternately to both
// instances. Once with each instance's in-memory store, once with the PostgreSQL store they
// share (when DEX_BENCH_POSTGRES_URL is set), side by side in one run.
//
// After the timed phase every accepted request is sent once more, unchanged: with PostgreSQL to
// the *other* instance, with the in-memory stores to the same one (in-memory stores are not
// shared, which is the reason for PostgreSQL). Every replay must be refused, every request must
// have been answered 200, and the upstream must have seen each request exactly once.
//
// Usage: dex-proxy-load [requests (10000)] [clients (8)]
//   DEX_BENCH_POSTGRES_URL=postgres://…  adds the PostgreSQL run (run.sh starts one)
// Exit status 1 when a request was lost, or a replay accepted.

import DexProxy
import Foundation

let arguments = CommandLine.arguments
let requestCount = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 10_000) : 10_000
let clientCount = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 8) : 8
let postgresURL = ProcessInfo.processInfo.environment["DEX_BENCH_POSTGRES_URL"].flatMap {
  $0.isEmpty ? nil : $0
}

var runs: [Run] = []
do {
  let test = try LoadTest(requests: requestCount, clients: clientCount)
  runs.append(try await test.measure(store: "memory", postgres: nil))
  if let postgresURL {
    var store = try PostgresStoreConfiguration(url: postgresURL)
    store.maximumConnections = max(store.maximumConnections, clientCount * 2)
    runs.append(try await test.measure(store: "postgres", postgres: store))
  } else {
    print("(DEX_BENCH_POSTGRES_URL is not set: the PostgreSQL run is skipped)")
  }
} catch {
  print("dex-proxy-load failed: \(error)")
  exit(1)
}

func column(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

print("\(requestCount) signed /vision requests, \(clientCount) clients, 2 instances, stub upstream")
print(
  "store     accepted  lost  upstream calls     req/s  p50 ms  p99 ms  replays refused")
for run in runs {
  let figures = [
    column("\(run.accepted)", 8), column("\(run.lost)", 4), column("\(run.upstreamCalls)", 14),
    column(String(format: "%.0f", run.throughput), 8),
    column(String(format: "%.2f", run.percentile(0.5) * 1000), 6),
    column(String(format: "%.2f", run.percentile(0.99) * 1000), 6),
  ]
  let store = run.store.padding(toLength: 8, withPad: " ", startingAt: 0)
  print(
    "\(store)  \(figures.joined(separator: "  "))  \(run.replaysRefused)/\(run.accepted) (\(run.replayTarget))"
  )
  if !run.otherStatuses.isEmpty { print("  \(run.store): other statuses \(run.otherStatuses)") }
}
if runs.count == 2 {
  print(String(format: "throughput memory/postgres: %.2f", runs[0].throughput / runs[1].throughput))
}
if !runs.allSatisfy(\.healthy) {
  print("FAILED: a request was lost, reached the upstream twice, or a replay was accepted")
  exit(1)
}
