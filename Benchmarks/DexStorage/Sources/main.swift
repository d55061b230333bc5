// dex-storage-bench: DexStore beside a raw sqlite3 C API baseline, same workload, same run.
//
//   dex-storage-bench [--dir DIR] [--quick]            runs both sides (each in a child process,
//                                                      so peak RSS is per side) and prints a table
//   dex-storage-bench --side ours|baseline --dir DIR   runs one side, prints `RESULT {json}`
import DexModel
import DexStorage
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
  return arguments[index + 1]
}
var workload = Workload()
if arguments.contains("--quick") {
  workload.inserts = 40
  workload.sizes = [5_000, 10_000]
  workload.queryRepeats = 50
}
let root = URL(
  fileURLWithPath: option("--dir") ?? NSTemporaryDirectory() + "dex-storage-bench-\(getpid())")

if let side = option("--side") {
  let directory = root.appendingPathComponent(side)
  try? FileManager.default.removeItem(at: directory)
  let results: Any
  switch side {
  case "inserts": results = try await measureInserts(root: directory, workload: workload)
  case "ours":
    results = try await measureListing(OursSide.self, root: directory, workload: workload)
  default:
    results = try await measureListing(BaselineSide.self, root: directory, workload: workload)
  }
  try? FileManager.default.removeItem(at: directory)
  let json = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
  print("RESULT " + String(decoding: json, as: UTF8.self))
  exit(0)
}

/// Runs one side in a child process and parses its measurements.
@MainActor func runSide(_ side: String) throws -> [String: Any] {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
  if !FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") {
    process.executableURL = Bundle.main.executableURL
  }
  process.arguments =
    ["--side", side, "--dir", root.path] + (arguments.contains("--quick") ? ["--quick"] : [])
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let line = output.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }),
    let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8))
      as? [String: Any]
  else { throw BenchFailure("the \(side) side failed:\n\(output)") }
  return object
}

print(
  "DexStorage benchmark: \(workload.inserts) inserts per side (interleaved) of \(workload.insertImageBytes / 1_000) KB images; "
    + "listing at \(workload.sizes.map(String.init).joined(separator: " / ")) entries "
    + "(\(workload.listImageBytes) B images); medians of \(workload.queryRepeats) queries, \(workload.openRepeats) opens"
)
let inserts = try runSide("inserts")
var baseline = try runSide("baseline") as? Measurements ?? [:]
var ours = try runSide("ours") as? Measurements ?? [:]
baseline.merge(inserts["baseline"] as? Measurements ?? [:]) { $1 }
ours.merge(inserts["ours"] as? Measurements ?? [:]) { $1 }
try? FileManager.default.removeItem(at: root)

var metrics = ["insert_median_ms", "inserts_per_s"]
for size in workload.sizes {
  metrics += ["first_page_\(size)_ms", "category_\(size)_ms", "search_\(size)_ms"]
}
metrics += ["open_\(workload.sizes.last ?? 0)_ms", "peak_rss_mib"]
func cell(_ value: Double?) -> String {
  guard let value else { return "-" }
  return value >= 100 ? String(format: "%.0f", value) : String(format: "%.3f", value)
}
let header =
  "metric".padding(toLength: 26, withPad: " ", startingAt: 0)
  + "      ours  baseline  ours/baseline"
print(header)
print(String(repeating: "-", count: header.count))
for metric in metrics {
  let a = ours[metric]
  let b = baseline[metric]
  let ratio = (a != nil && b != nil && b != 0) ? String(format: "%.2f", (a ?? 0) / (b ?? 1)) : "-"
  print(
    metric.padding(toLength: 26, withPad: " ", startingAt: 0)
      + cell(a).leftPadded(10) + cell(b).leftPadded(10) + ratio.leftPadded(15))
}

extension String {
  func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
