import DexModel
import DexTestSupport
import Foundation
import Testing

@testable import DexStorage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fresh directory under the system temp directory, removed after `body`.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("DexStorageTests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  chmod(url.path, 0o755)  // an unprivileged child process must be able to enter it
  defer { try? FileManager.default.removeItem(at: url) }
  return try await body(url)
}

/// Random bytes standing in for an encoded photo.
func randomImage(_ count: Int = 2_048) -> Data {
  var words = [UInt64](repeating: 0, count: (count + 7) / 8)
  for index in words.indices { words[index] = UInt64.random(in: .min ... .max) }
  return words.withUnsafeBytes { Data($0.prefix(count)) }
}

/// An entry with readable defaults.
func makeEntry(
  _ name: String, category: DexCategory = .plant, summary: String = "", facts: [String] = [],
  scientificName: String = "", discovered: Date = Date(), notes: String = ""
) -> DexEntry {
  DexEntry(
    commonName: name, categoryRaw: category.rawValue, scientificName: scientificName,
    summary: summary, facts: facts, rarity: "Rare", confidence: 0.8, localGuessLabel: "guess",
    dateDiscovered: discovered, notes: notes)
}

/// Opens a store in `directory` with test-friendly settings.
func openStore(
  _ directory: URL, policy: DexDuplicatePolicy = .keepBoth, busyTimeout: TimeInterval = 5
) throws -> DexStore {
  try DexStore(
    configuration: .init(
      directory: directory, duplicatePolicy: policy, busyTimeout: busyTimeout))
}

/// A store opened by ``openStore(_:policy:busyTimeout:)`` in a fresh temporary directory that is
/// removed after `body`: the set-up of every test that needs one empty store and nothing else.
func withTemporaryStore<T>(_ body: (DexStore) async throws -> T) async throws -> T {
  try await withTemporaryDirectory { directory in try await body(try openStore(directory)) }
}

/// Every regular file under `directory`, as relative paths.
func filesUnder(_ directory: URL) -> [String] {
  let root = directory.standardizedFileURL.path
  guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
  var result: [String] = []
  while let relative = enumerator.nextObject() as? String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      result.append(relative)
    }
  }
  return result
}

/// The crash probe executable, built by SwiftPM next to the test bundle.
func probeExecutable() throws -> URL {
  var candidates: [URL] = []
  #if os(Linux)
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      candidates.append(URL(fileURLWithPath: path).deletingLastPathComponent())
    }
  #endif
  if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
  for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
    candidates.append(bundle.bundleURL.deletingLastPathComponent())
  }
  for directory in candidates {
    let url = directory.appendingPathComponent("DexStoreCrashProbe")
    if FileManager.default.isExecutableFile(atPath: url.path) { return url }
  }
  throw ProbeNotFound(searched: candidates.map(\.path))
}

struct ProbeNotFound: Error, CustomStringConvertible {
  var searched: [String]
  var description: String { "DexStoreCrashProbe not found in \(searched)" }
}

/// Starts the probe's endless insert/delete loop on `store`, logging acknowledged writes to `log`.
func startCrashLoop(_ probe: URL, store: URL, log: String) throws -> Process {
  let process = Process()
  process.executableURL = probe
  process.arguments = ["crash-loop", store.path, log]
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  return process
}

/// Runs the probe to completion and returns its `RESULT name value` lines; awaits the exit
/// without blocking a cooperative thread.
func runProbe(_ arguments: [String]) async throws -> [String: String] {
  let outcome = try await ChildProcess.run(try probeExecutable(), arguments: arguments)
  var results: [String: String] = [:]
  for line in String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n") {
    let parts = line.split(separator: " ", maxSplits: 2)
    if parts.count == 3, parts[0] == "RESULT" { results[String(parts[1])] = String(parts[2]) }
  }
  results["exitStatus"] = "\(outcome.status)"
  return results
}

/// Pages delivered by an observation, collected from its consuming task.
final class PageLog: @unchecked Sendable {
  private let lock = NSLock()
  private var pages: [DexPage] = []

  func append(_ page: DexPage) {
    lock.lock()
    pages.append(page)
    lock.unlock()
  }

  private func snapshot() -> [DexPage] {
    lock.lock()
    defer { lock.unlock() }
    return pages
  }

  /// Whether `condition` held for the pages seen so far at some point within `limit` (checked
  /// every 10 ms); never a timing assertion: a slow machine only takes longer to say yes.
  func wait(
    upTo limit: Duration = .seconds(60), until condition: ([DexPage]) -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
      if condition(snapshot()) { return true }
      if ContinuousClock.now >= deadline { return false }
      try? await Task.sleep(for: .milliseconds(10))
    }
  }
}
