import DexProxy
import Foundation
import Testing

/// One `GET /metrics` body, parsed from the Prometheus text format.
struct MetricsScrape: Sendable {
  /// One sample line: `name{label="value",…} number`.
  struct Sample: Sendable {
    var name: String
    var labels: [String: String]
    var value: Double
  }

  let text: String
  let samples: [Sample]

  init(text: String) {
    self.text = text
    samples = text.split(separator: "\n").compactMap { Self.parse(String($0)) }
  }

  /// The value of the sample named `name` whose labels include `labels`; the sum when several
  /// match, `nil` when none does.
  func value(_ name: String, _ labels: [String: String]) -> Double? {
    let matching = samples.filter { sample in
      sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
    }
    return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
  }

  /// The request counter (``ProxyMetrics/Name/requests``) of the requests to `route` with this
  /// status class (`"2xx"`, `"4xx"`…) and outcome (`nil`: any); `nil` when none was counted.
  func requests(route: String, status: String? = nil, outcome: String? = nil) -> Double? {
    var labels = ["route": route]
    labels["status"] = status
    labels["outcome"] = outcome
    return value(ProxyMetrics.Name.requests, labels)
  }

  /// The sample lines whose name starts with `prefix`.
  func lines(startingWith prefix: String) -> [Sample] {
    samples.filter { $0.name.hasPrefix(prefix) }
  }

  private static func parse(_ line: String) -> Sample? {
    guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
      let value = Double(line[line.index(after: space)...])
    else { return nil }
    let head = line[..<space]
    guard let brace = head.firstIndex(of: "{") else {
      return Sample(name: String(head), labels: [:], value: value)
    }
    var labels: [String: String] = [:]
    let body = head[head.index(after: brace)...].dropLast()
    for pair in body.split(separator: ",") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2 else { continue }
      labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
    }
    return Sample(name: String(head[..<brace]), labels: labels, value: value)
  }
}

@available(macOS 14, iOS 17, tvOS 17, *)
extension ProxyHarness {
  /// `GET /metrics`, which must answer 200 in the Prometheus text format.
  func scrape(sourceLocation: SourceLocation = #_sourceLocation) async throws -> MetricsScrape {
    let response = try await send("GET", "/metrics")
    try #require(response.statusCode == 200, sourceLocation: sourceLocation)
    #expect(
      response.value(forHeader: "Content-Type")?.hasPrefix("text/plain") == true,
      sourceLocation: sourceLocation)
    return MetricsScrape(text: String(decoding: response.body, as: UTF8.self))
  }
}
