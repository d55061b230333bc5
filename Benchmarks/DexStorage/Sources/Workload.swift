import DexModel
import DexStorage
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The benchmark's parameters, shared by both sides so they do identical work.
struct Workload: Sendable {
  var inserts = 200
  var insertImageBytes = 200_000
  var listImageBytes = 256
  var sizes = [10_000, 100_000]
  var batch = 1_000
  var queryRepeats = 200
  var openRepeats = 20
  var searchWord = "zephyr"
  var category = DexCategory.fish

  private static let adjectives = [
    "spotted", "striped", "orange", "tiny", "giant", "silver", "wild", "shy",
  ]
  private static let nouns = [
    "creature", "specimen", "find", "sample", "visitor", "resident", "beauty",
  ]
  private static let places = ["river", "forest", "reef", "garden", "meadow", "harbour", "cliff"]

  /// The `index`-th synthetic entry; 1% mention ``searchWord``.
  func entry(_ index: Int) -> DexEntry {
    let adjective = Self.adjectives[index % Self.adjectives.count]
    let noun = Self.nouns[(index / 7) % Self.nouns.count]
    let place = Self.places[(index / 3) % Self.places.count]
    let rare = index % 100 == 42 ? " A \(searchWord) breeze was blowing." : ""
    return DexEntry(
      id: UUID().uuidString,
      commonName: "\(adjective.capitalized) \(noun) \(index)",
      categoryRaw: DexCategory.allCases[index % DexCategory.allCases.count].rawValue,
      scientificName: "Genus species\(index % 997)",
      summary: "A \(adjective) \(noun) seen near the \(place).\(rare)",
      facts: ["Found at dawn", "Measured \(index % 50) cm", "Seen with \(noun)s"],
      rarity: "Common", confidence: 0.9, localGuessLabel: noun,
      dateDiscovered: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 60),
      notes: "")
  }
}

/// Random bytes standing in for an encoded photo (incompressible, like JPEG).
func randomBytes(_ count: Int) -> Data {
  var words = [UInt64](repeating: 0, count: (count + 7) / 8)
  for index in words.indices { words[index] = UInt64.random(in: .min ... .max) }
  return words.withUnsafeBytes { Data($0.prefix(count)) }
}

/// Milliseconds taken by `body`.
func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try await body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// This process's peak resident set size in MiB.
func peakRSSMiB() -> Double {
  var usage = rusage()
  #if os(Linux)
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1_024
  #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
  #endif
}

/// What one side measured, by metric name.
typealias Measurements = [String: Double]

/// The operations both sides implement, so the driver measures them identically.
protocol BenchSide: AnyObject {
  /// Opens (creating) a store in `directory`.
  init(directory: URL) async throws
  /// One durable insert: image file written and fsynced, then the row committed.
  func insertOne(_ entry: DexEntry, image: Data) async throws
  /// A batch of durable inserts in one transaction.
  func insertBatch(_ entries: [DexEntry], imageBytes: Int) async throws
  /// The first page of the newest `limit` entries, optionally filtered.
  func firstPage(category: DexCategory?, text: String?, limit: Int) async throws -> [DexEntry]
  /// Releases the store.
  func close() async throws
}

/// Insert throughput with full-size photos, both sides interleaved insert by insert in one
/// process so that disk and CPU conditions (other load on the machine) hit both equally.
func measureInserts(root: URL, workload: Workload) async throws -> [String: Measurements] {
  let ours = try await OursSide(directory: root.appendingPathComponent("ours-insert"))
  let baseline = try await BaselineSide(directory: root.appendingPathComponent("baseline-insert"))
  var times: [String: [Double]] = ["ours": [], "baseline": []]
  for index in 0..<workload.inserts {
    let image = randomBytes(workload.insertImageBytes)
    let entry = workload.entry(index)
    // Alternate which side goes first so neither always follows the other's fsync.
    let order: [(String, any BenchSide)] =
      index.isMultiple(of: 2)
      ? [("ours", ours), ("baseline", baseline)] : [("baseline", baseline), ("ours", ours)]
    for (name, side) in order {
      var copy = entry
      copy.id = UUID().uuidString
      times[name, default: []].append(
        try await milliseconds { try await side.insertOne(copy, image: image) })
    }
  }
  try await ours.close()
  try await baseline.close()
  var results: [String: Measurements] = [:]
  for (name, samples) in times {
    results[name] = [
      "insert_median_ms": median(samples),
      "inserts_per_s": Double(samples.count) / (samples.reduce(0, +) / 1_000),
    ]
  }
  return results
}

/// Listing, filtering and searching at growing sizes, then open time at the largest, on one side.
func measureListing<Side: BenchSide>(
  _ side: Side.Type, root: URL, workload: Workload
) async throws
  -> Measurements
{
  var results: Measurements = [:]
  let listDir = root.appendingPathComponent("list")
  var store = try await Side(directory: listDir)
  var populated = 0
  for size in workload.sizes {
    while populated < size {
      let count = min(workload.batch, size - populated)
      let entries = (populated..<(populated + count)).map(workload.entry)
      try await store.insertBatch(entries, imageBytes: workload.listImageBytes)
      populated += count
    }
    try await store.close()
    store = try await Side(directory: listDir)
    for (name, category, text) in [
      ("first_page", DexCategory?.none, String?.none), ("category", workload.category, nil),
      ("search", nil, workload.searchWord),
    ] {
      var samples: [Double] = []
      for _ in 0..<workload.queryRepeats {
        var page: [DexEntry] = []
        samples.append(
          try await milliseconds {
            page = try await store.firstPage(category: category, text: text, limit: 50)
          })
        guard page.count == 50 else {
          throw BenchFailure("\(name) at \(size) returned \(page.count) entries, not 50")
        }
      }
      results["\(name)_\(size)_ms"] = median(samples)
    }
  }
  try await store.close()
  var opens: [Double] = []
  for _ in 0..<workload.openRepeats {
    var opened: Side?
    opens.append(try await milliseconds { opened = try await Side(directory: listDir) })
    try await opened?.close()
  }
  results["open_\(populated)_ms"] = median(opens)
  results["peak_rss_mib"] = peakRSSMiB()
  return results
}

struct BenchFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
