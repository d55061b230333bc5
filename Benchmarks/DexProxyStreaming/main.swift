// Streamed against whole identification replies, end to end on loopback: DexCloud's signed
// client and DexVisionService → dex-proxy (in-process, 127.0.0.1) → DexProxyTesting's stub
// OpenAI-compatible upstream, which writes a 300-token identification entry at 40 tokens/s
// (the name first, as dex-proxy's prompt asks) — about 7.5 s, as a vision model writing an
// entry takes.
//
// Streamed: `stream: true` all the way (upstream, proxy's Server-Sent Events, the client's
// incremental parse); time to the first partial result holding the name, and to the complete
// entry. Whole: `identify`, whose reply arrives when the model has written it all (the stub
// waits the same 300 tokens' time, then answers); the name and the entry arrive together.
// Rounds alternate (streamed, whole) so that both see the same machine; the median of each is
// printed, with the largest resident set sampled while each mode ran and the process's peak.
//
// Usage: dex-proxy-streaming-bench [rounds (5)] [tokens per second (40)]
// Exit status 1 when a round failed, or its streamed and whole entries differ.

import DexCloud
import DexCloudServer
import DexModel
import DexProxy
import DexProxyTesting
import Foundation
import Logging

let arguments = CommandLine.arguments
let rounds = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 5) : 5
let tokensPerSecond = arguments.count > 2 ? max(1, Double(arguments[2]) ?? 40) : 40
let tokenCount = 300

/// A 300-token identification, name first: long summary and facts, as a model writes them.
let entryJSON: String = {
  let facts = (1...10).map {
    "\"Fact \($0): the leaves of this climbing aroid split and perforate as the plant matures, letting wind and light through\""
  }
  return """
    {"commonName":"Monstera Deliciosa","category":"plant","scientificName":"Monstera deliciosa",\
    "summary":"A tropical climbing plant of Central American rainforests with large, glossy, split leaves, grown indoors the world over.",\
    "facts":[\(facts.joined(separator: ","))],"rarity":"Common","confidence":0.92}
    """
}()

/// `text` in `count` pieces of (nearly) equal length: one per model token.
func tokens(_ text: String, count: Int) -> [String] {
  let characters = Array(text)
  return (0..<count).map { index in
    String(
      characters[(index * characters.count / count)..<((index + 1) * characters.count / count)])
  }
}

/// The resident set now (`VmRSS`) and at its peak (`VmHWM`), in MiB (Linux; 0 elsewhere).
func memory() -> (current: Double, peak: Double) {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return (0, 0)
  }
  func field(_ name: String) -> Double {
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
      let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
  }
  return (field("VmRSS:"), field("VmHWM:"))
}

/// The largest `VmRSS` seen every 20 ms while `body` runs.
func sampledPeak<T>(
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> (T, Double) {
  let sampler = Task {
    var largest = memory().current
    while !Task.isCancelled {
      largest = max(largest, memory().current)
      try? await Task.sleep(for: .milliseconds(20))
    }
    return max(largest, memory().current)
  }
  let value = try await body()
  sampler.cancel()
  return (value, await sampler.value)
}

func median(_ values: [Duration]) -> Double {
  let seconds = values.map {
    Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
  }
  .sorted()
  return seconds.isEmpty ? 0 : seconds[seconds.count / 2]
}

struct BenchFailure: Error, CustomStringConvertible {
  let description: String
}

var quiet = Logger(label: "bench")
quiet.logLevel = .critical
let pieces = tokens(entryJSON, count: tokenCount)
let interval = Duration.seconds(1 / tokensPerSecond)
let writing = interval * tokenCount

let upstream = StubUpstream()
try await upstream.start()
guard let bootstrapKey = SigningSecret("benchmark-bootstrap-key-5d0c2a"),
  let serverSecret = SigningSecret("benchmark-server-secret-0f9e8d7c6b5a4938"),
  let serverKey = ServerKey(id: "k1", secret: serverSecret),
  let upstreamURL = URL(string: "http://127.0.0.1:\(upstream.port)/v1/")
else { fatalError("benchmark secrets") }
let configuration = ProxyConfiguration.unthrottled(
  bootstrapKey: bootstrapKey, serverKey: serverKey, upstreamURL: upstreamURL)
let proxy = try await LoopbackServer.startProxy(configuration, logger: quiet)
guard let proxyURL = URL(string: "http://127.0.0.1:\(proxy.port)") else { fatalError("proxy URL") }
let client = ApiClient(
  configuration: DexCloudConfiguration(
    baseURL: proxyURL, bootstrapKey: bootstrapKey, subject: "benchmark"),
  logger: quiet)
let vision = DexVisionService(client: client, logger: quiet)
let photo = Data(repeating: 0xAB, count: 64 << 10)  // the stub model does not look at it

var streamedName: [Duration] = []
var streamedWhole: [Duration] = []
var wholeReply: [Duration] = []
var streamedPeak = 0.0
var wholePeak = 0.0
var failed: String?
// One session before the rounds: every round then measures the call alone.
_ = try? await vision.describe(imageData: photo, question: "warm-up")

do {
  for _ in 0..<rounds {
    upstream.enqueue(.stream(pieces, interval: interval))
    let (streamed, streamedRSS) = try await sampledPeak {
      let start = ContinuousClock.now
      var name: Duration?
      var final: ScanResult?
      for try await update in vision.streamIdentification(imageData: photo, categoryHint: nil) {
        switch update {
        case .partial(let partial):
          if name == nil, partial.commonName != nil { name = ContinuousClock.now - start }
        case .complete(let result): final = result
        }
      }
      return (name, ContinuousClock.now - start, final)
    }
    guard let name = streamed.0, let streamedEntry = streamed.2 else {
      throw BenchFailure(description: "a streamed round gave no name or no entry")
    }
    streamedName.append(name)
    streamedWhole.append(streamed.1)
    streamedPeak = max(streamedPeak, streamedRSS)

    upstream.enqueue(.slow(writing, .content(entryJSON)))
    let (whole, wholeRSS) = try await sampledPeak {
      let start = ContinuousClock.now
      let result = try await vision.identify(imageData: photo, categoryHint: nil)
      return (ContinuousClock.now - start, result)
    }
    guard whole.1 == streamedEntry, whole.1.commonName == "Monstera Deliciosa" else {
      throw BenchFailure(description: "the streamed and whole entries differ")
    }
    wholeReply.append(whole.0)
    wholePeak = max(wholePeak, wholeRSS)
  }
} catch {
  failed = "\(error)"
}
await proxy.stop()
await upstream.stop()

if let failed {
  print("dex-proxy-streaming-bench failed: \(failed)")
  exit(1)
}
let nameStreamed = median(streamedName)
let entryStreamed = median(streamedWhole)
let entryWhole = median(wholeReply)
print(
  "\(tokenCount)-token entry at \(Int(tokensPerSecond)) tokens/s (\(entryJSON.utf8.count) bytes), "
    + "\(rounds) rounds, median; client → dex-proxy → stub model on 127.0.0.1")
print("mode       name s   entry s   largest RSS MiB")
print(String(format: "streamed  %6.2f   %7.2f   %8.1f", nameStreamed, entryStreamed, streamedPeak))
print(String(format: "whole     %6.2f   %7.2f   %8.1f", entryWhole, entryWhole, wholePeak))
print(
  String(
    format: "name streamed / whole reply: %.3f (target < 0.333); entry streamed / whole: %.3f",
    nameStreamed / entryWhole, entryStreamed / entryWhole))
print(String(format: "process peak RSS (VmHWM): %.1f MiB", memory().peak))
