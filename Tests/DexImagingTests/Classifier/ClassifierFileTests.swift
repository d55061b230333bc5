import DexTestTraits
import Foundation
import Testing

@testable import DexImaging

/// The classifier's resource files a host may name (weights manifest, int8 ranges, label and
/// hierarchy tables, the weights file) are bounded before they are read: a file far larger than
/// any such table, or one that is not a regular file (a FIFO, `/dev/zero`), is a typed error at
/// once, saying which.
@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct ClassifierFileTests {
  /// Whether `error` is a too-large refusal naming `name`.
  static func isTooLarge(_ error: any Error, _ name: String) -> Bool {
    guard case .invalidManifest(let message) = error as? ClassifierError else { return false }
    return message.contains(name) && message.contains("too large")
  }

  /// Whether `error` says `name` cannot be read for `expected`.
  static func isUnreadable(
    _ error: any Error, _ name: String, reason expected: String = "not a regular file"
  ) -> Bool {
    guard case .unreadableFile(let path, let reason) = error as? ClassifierError else {
      return false
    }
    return path == name && reason == expected
  }

  /// Expects both table readers to refuse `url` with an error `matches` accepts.
  static func expectTableRefused(
    _ url: URL, sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: @escaping (any Error) -> Bool
  ) {
    #expect(sourceLocation: sourceLocation) {
      try ClassifierLabelTable(contentsOf: url)
    } throws: { matches($0) }
    #expect(sourceLocation: sourceLocation) {
      try ClassifierHierarchy(contentsOf: url)
    } throws: { matches($0) }
  }

  @Test func anOversizedManifestIsRefused() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    // Valid JSON up front, padded past the bound with spaces.
    let text = try String(contentsOf: manifest, encoding: .utf8)
    try Data((text + String(repeating: " ", count: 1 << 20)).utf8).write(to: manifest)
    #expect {
      try EfficientNetLite0(manifestURL: manifest)
    } throws: { Self.isTooLarge($0, "EfficientNetLite0.json") }
  }

  @Test(.enabled(if: EfficientNetLite0.isOneDNNBuiltIn))
  func oversizedInt8RangesAreRefused() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let ranges = directory.appendingPathComponent("EfficientNetLite0.int8.json")
    let text = try String(contentsOf: ranges, encoding: .utf8)
    try Data((text + String(repeating: " ", count: 1 << 20)).utf8).write(to: ranges)
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    #expect {
      try EfficientNetLite0(manifestURL: manifest, backend: .oneDNN, precision: .int8)
    } throws: { Self.isTooLarge($0, "EfficientNetLite0.int8.json") }
  }

  @Test func anOversizedLabelTableIsRefused() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let table = directory.appendingPathComponent("huge.tsv")
    let line = "n01440764\ttench\tfish\n"
    try Data(String(repeating: line, count: (8 << 20) / line.utf8.count + 1).utf8).write(to: table)
    Self.expectTableRefused(table) { Self.isTooLarge($0, "huge.tsv") }
  }

  @Test(arguments: ["EfficientNetLite0.json", "EfficientNetLite0.weights"])
  func aFIFOIsRefusedWithoutWaiting(file: String) throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let manifest = directory.appendingPathComponent("EfficientNetLite0.json")
    let fifo = directory.appendingPathComponent(file)
    try FileManager.default.removeItem(at: fifo)
    try #require(mkfifo(fifo.path, 0o600) == 0)
    // No writer: a blocking open(2) would wait for one for ever. The load runs on a thread of
    // its own, so that such a regression fails here after 20 s instead of hanging the test run.
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Thread {
      do throws(ClassifierError) {
        _ = try EfficientNetLite0(manifestURL: manifest)
      } catch {
        outcome.error = error
      }
      done.signal()
    }.start()
    try #require(done.wait(timeout: .now() + 20) == .success, "loading a FIFO still waits")
    let error = try #require(outcome.error, "a FIFO loaded as a manifest")
    #expect(Self.isUnreadable(error, file), "\(error)")
  }

  /// The loading thread's error; the semaphore orders the write before the read.
  private final class Outcome: @unchecked Sendable {
    var error: ClassifierError?
  }

  @Test func aDeviceThatNeverEndsIsRefused() throws {
    let zero = URL(fileURLWithPath: "/dev/zero")
    try #require(FileManager.default.isReadableFile(atPath: zero.path))
    Self.expectTableRefused(zero) { Self.isUnreadable($0, "zero") }
  }

  @Test func notUTF8IsATypedError() throws {
    let directory = try ClassifierFixtures.copyOfResources()
    defer { try? FileManager.default.removeItem(at: directory) }
    let table = directory.appendingPathComponent("latin1.tsv")
    try Data([0x6E, 0x30, 0x09, 0xE9, 0xFF, 0x0A]).write(to: table)
    Self.expectTableRefused(table) {
      Self.isUnreadable($0, "latin1.tsv", reason: "not UTF-8 text")
    }
  }
}
