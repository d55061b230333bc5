// Times DexScanner from photo bytes to the local guess and to the final result. The cloud pass
// goes over real loopback HTTP: DexVisionService (signed) → dex-proxy → a stub OpenAI-compatible
// upstream that answers at once (see LoopbackBackend), so the figures are DexKit's own cost plus
// two loopback hops. DEX_BENCH_CLOUD=instant swaps in an in-process stub instead.
// Usage: dex-scan-benchmark <photo.jpg> [runs] [reducing gap] [classifier threads]

import DexKit
import Foundation

struct InstantVision: DexVisionServicing {
  func identify(imageData: Data, categoryHint: DexCategory?) async throws -> ScanResult {
    ScanResult(
      commonName: "Stub", category: (categoryHint ?? .unknown).rawValue, summary: "Stub.")
  }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let index = min(sorted.count - 1, max(0, Int((Double(sorted.count - 1) * fraction).rounded())))
  return sorted[index]
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let photo = FileManager.default.contents(atPath: arguments[1]) else {
  print("usage: dex-scan-benchmark <photo> [runs]")
  exit(64)
}
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 30 : 30
// Optional third argument: the shrink-on-load reducing gap (DecodingOptions.reducingGap).
var encoding = DownscaleOptions()
if arguments.count > 3, let gap = Double(arguments[3]) { encoding.decoding.reducingGap = gap }
// Optional fourth argument: the classifier's threads (default: .interactive, what DexScanner uses).
let classifier =
  arguments.count > 4
  ? ImageClassifier(configuration: .init(threads: Int(arguments[4]) ?? 1))
  : ImageClassifier(configuration: .interactive)
let backend: LoopbackBackend?
let vision: any DexVisionServicing
if ProcessInfo.processInfo.environment["DEX_BENCH_CLOUD"] == "instant" {
  backend = nil
  vision = InstantVision()
} else {
  let started = try await LoopbackBackend.start()
  backend = started
  vision = started.vision
}
let scanner = DexScanner(
  classifier: classifier, visionService: vision,
  configuration: .init(encoding: encoding))
var toGuess: [Double] = []
var toResult: [Double] = []
var fellBack = 0  // scans that did not end with a cloud result
let clock = ContinuousClock()
// Warm-up: loads the weights once and opens the signed session.
let warmUp = await scanner.run(photo)
guard warmUp.phase == .result, !warmUp.isOffline || backend == nil else {
  print("the warm-up scan did not reach the cloud pass: \(warmUp.phase)")
  exit(70)
}
for _ in 0..<runs {
  let start = clock.now
  var guessAt: Duration?
  var final: DexScanState?
  for await state in scanner.scan(photo) {
    if guessAt == nil && state.localGuess != nil { guessAt = clock.now - start }
    final = state
  }
  let fellBackBefore = fellBack
  if guessAt == nil || final?.phase != .result || (backend != nil && final?.isOffline == true) {
    fellBack += 1
  }
  let total = clock.now - start
  func ms(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
  }
  // Only complete scans count: a run without a guess or without a cloud result is reported in
  // "not from the cloud" instead of skewing the medians.
  if let guessAt, fellBackBefore == fellBack {
    toGuess.append(ms(guessAt))
    toResult.append(ms(total))
  }
}
var usage = rusage()
#if os(Linux)
  getrusage(RUSAGE_SELF.rawValue, &usage)
#else
  getrusage(RUSAGE_SELF, &usage)
#endif
print(
  String(
    format:
      "runs %d  local guess median %.1f ms p95 %.1f ms  final result median %.1f ms p95 %.1f ms  peak RSS %.0f MB  not from the cloud %d",
    runs, percentile(toGuess, 0.5), percentile(toGuess, 0.95), percentile(toResult, 0.5),
    percentile(toResult, 0.95), Double(usage.ru_maxrss) / 1024, fellBack))
await backend?.stop()
