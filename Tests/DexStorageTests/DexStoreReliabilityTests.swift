import DexModel
import Foundation
import GRDB
import Testing

@testable import DexStorage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Crash safety and failure injection against real files and real child processes.
@Suite("DexStore reliability", .serialized)
struct DexStoreReliabilityTests {
  /// The lines a probe's log holds (0 before it exists).
  static func lineCount(_ path: String) -> Int {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").count
  }

  /// Polls `condition` every 10 ms for up to a minute (a probe that never writes fails the
  /// round's checks after that).
  static func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition(), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
  }

  /// A child inserting (and sometimes deleting) entries with images is SIGKILLed at random
  /// moments, 24 times. After every kill the store must open, pass `integrity_check`, hold every
  /// insert that returned (with byte-identical images), hold no entry whose delete returned, and
  /// keep no file that no entry references.
  @Test func survivesRepeatedSIGKILLDuringWrites() async throws {
    try await withTemporaryDirectory { dir in
      let storeDir = dir.appendingPathComponent("Dex.store")
      let log = dir.appendingPathComponent("probe.log").path
      let probe = try probeExecutable()
      let rounds = 24
      var unacknowledged = Set<String>()  // committed inserts the probe was killed before logging
      var checked = Set<String>()
      var acknowledgedInserts = 0
      var roundsWithLeftovers = 0  // kills that left journal files for recovery to resolve
      for round in 0..<rounds {
        let logged = Self.lineCount(log)
        let process = try startCrashLoop(probe, store: storeDir, log: log)
        // Kill anywhere from during startup to well into the insert loop: every fourth round
        // from the launch, the others once the probe has acknowledged two inserts (a loaded
        // machine can take longer to start it than any fixed delay, and can write few in the
        // random delay after: the 18 such rounds alone log the 36 inserts checked at the end).
        if !round.isMultiple(of: 4) {
          try await Self.waitUntil { Self.lineCount(log) >= logged + 2 }
        }
        try await Task.sleep(
          for: .milliseconds(Int.random(in: 30...(round.isMultiple(of: 4) ? 700 : 350))))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "round \(round) ended by itself")
        if !filesUnder(storeDir.appendingPathComponent("tmp")).isEmpty { roundsWithLeftovers += 1 }

        let store = try openStore(storeDir)
        // Hashes of every image are checked in the last round; before that, existence of all
        // files and the hashes of entries not yet checked.
        let report = try await store.verifyIntegrity(verifyingHashes: round == rounds - 1)
        #expect(report.databaseMessages.isEmpty, "round \(round): \(report.databaseMessages)")
        #expect(report.missingImageIDs.isEmpty, "round \(round): missing \(report.missingImageIDs)")
        #expect(report.corruptImageIDs.isEmpty, "round \(round): corrupt \(report.corruptImageIDs)")
        #expect(
          report.unreferencedFiles.isEmpty, "round \(round): orphans \(report.unreferencedFiles)")

        var live: [String: (image: String, thumbnail: String)] = [:]
        var deleted = Set<String>()
        var deleting = Set<String>()  // a delete was under way when the probe was killed
        let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        for line in lines.split(separator: "\n") {
          let fields = line.split(separator: " ").map(String.init)
          if fields.count == 4, fields[0] == "I" {
            live[fields[1]] = (fields[2], fields[3])
          } else if fields.count == 2, fields[0] == "d" {
            deleting.insert(fields[1])
          } else if fields.count == 2, fields[0] == "D" {
            live[fields[1]] = nil
            deleting.remove(fields[1])
            deleted.insert(fields[1])
          }
        }
        acknowledgedInserts = live.count + deleted.count
        // Whether an interrupted delete happened is undecided; if the entry is still there it
        // must be intact (verifyIntegrity covered that), and if it is gone, so are its files.
        for id in deleting where try await store.entry(id: id) == nil {
          live[id] = nil
          deleted.insert(id)
        }
        for (id, hashes) in live where !checked.contains(id) {
          let image = try await store.imageData(for: id)
          #expect(DexStore.contentHash(of: image) == hashes.image, "round \(round): image \(id)")
          let thumbnail = try await store.thumbnailData(for: id)
          #expect(thumbnail.map(DexStore.contentHash(of:)) ?? "-" == hashes.thumbnail)
          checked.insert(id)
        }
        for id in deleted {
          #expect(try await store.entry(id: id) == nil, "round \(round): deleted \(id) came back")
        }
        let stored = Set(try await store.allEntries(matching: DexQuery(limit: 1_000)).map(\.id))
        #expect(stored.isSuperset(of: live.keys), "round \(round): an acknowledged insert is lost")
        // Only the one insert in flight at the kill may be committed without an acknowledgement.
        let fresh = stored.subtracting(live.keys).subtracting(unacknowledged)
        #expect(fresh.count <= 1, "round \(round): \(fresh.count) unacknowledged entries")
        unacknowledged.formUnion(fresh)
        try store.close()
      }
      #expect(acknowledgedInserts > rounds, "the probe should have completed many inserts")
      #expect(roundsWithLeftovers > 0, "no kill landed mid-write, so recovery went untested")
    }
  }

  /// Two processes writing the same store at once (WAL, the second writer waits), then both
  /// SIGKILLed: every acknowledged insert of either is present and the store is sound.
  @Test func twoProcessesWriteOneStoreConcurrently() async throws {
    try await withTemporaryDirectory { dir in
      let storeDir = dir.appendingPathComponent("Dex.store")
      let logs = [
        dir.appendingPathComponent("a.log").path, dir.appendingPathComponent("b.log").path,
      ]
      let probe = try probeExecutable()
      var processes: [Process] = []
      for log in logs {
        processes.append(try startCrashLoop(probe, store: storeDir, log: log))
      }
      // Until both have acknowledged inserts (a second at least, so that they overlap).
      try await Task.sleep(for: .seconds(1))
      try await Self.waitUntil { logs.allSatisfy { Self.lineCount($0) >= 2 } }
      for process in processes {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "a writer failed instead of waiting")
      }
      let store = try openStore(storeDir)
      let report = try await store.verifyIntegrity()
      #expect(report.isHealthy, "\(report)")
      var acknowledged: [String: String] = [:]
      var interrupted = Set<String>()
      for log in logs {
        let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        var perLog = 0
        for line in lines.split(separator: "\n") {
          let fields = line.split(separator: " ").map(String.init)
          if fields.count == 4, fields[0] == "I" {
            acknowledged[fields[1]] = fields[2]
            perLog += 1
          } else if fields.count == 2, fields[0] == "D" {
            acknowledged[fields[1]] = nil
          } else if fields.count == 2, fields[0] == "d" {
            interrupted.insert(fields[1])
          }
        }
        #expect(perLog > 0, "both processes must have written")
      }
      for (id, hash) in acknowledged {
        // A delete under way at the kill may or may not have happened.
        if interrupted.contains(id), try await store.entry(id: id) == nil { continue }
        #expect(DexStore.contentHash(of: try await store.imageData(for: id)) == hash)
      }
    }
  }

  /// A closed store with one entry named `name` whose photo is as a crash after its commit,
  /// before its rename, leaves it: still staged in `tmp/`. Returns the entry, its photo and the
  /// path the photo is published at.
  static func stagedAfterCommit(
    _ name: String, in dir: URL
  ) async throws -> (DexEntry, Data, String) {
    let image = randomImage(3_000)
    let store = try openStore(dir)
    let entry = try await store.insert(makeEntry(name), image: image)
    try store.close()
    let files = StoreFiles(root: dir)
    let published = files.absolute(StoreFiles.relativePath(id: entry.id, kind: .image))
    try files.rename(published, to: files.stagedPath(id: entry.id, kind: .image))
    return (entry, image, published)
  }

  /// Files an interrupted insert or delete leaves in `tmp/` are resolved by the committed rows.
  @Test func recoveryRestoresCommittedFilesAndRemovesTheRest() async throws {
    try await withTemporaryDirectory { dir in
      let (committed, image, published) = try await Self.stagedAfterCommit("Committed", in: dir)
      let files = StoreFiles(root: dir)
      // A crash before an insert's commit, a delete's parked file and some junk.
      let uncommitted = UUID().uuidString
      try randomImage().write(
        to: URL(fileURLWithPath: files.stagedPath(id: uncommitted, kind: .image)))
      try randomImage().write(
        to: URL(fileURLWithPath: files.trashPath(id: uncommitted, kind: .thumbnail)))
      try Data("junk".utf8).write(to: URL(fileURLWithPath: files.tmpPath + "/whatever.partial"))

      let store = try openStore(dir)
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
      #expect(FileManager.default.fileExists(atPath: published))
      #expect(try await store.imageData(for: committed.id) == image)
      #expect(try await store.verifyIntegrity().isHealthy)
    }
  }

  /// Recovery puts back only a file whose bytes are the ones the entry's row records: of a
  /// deleted entry's parked photo and its re-insert's staged one, the re-insert's, in whatever
  /// order they are listed; a parked photo alone that is not the row's is removed, and the
  /// entry then says its photo is missing rather than showing another.
  @Test func recoveryPutsBackOnlyTheRowsOwnBytes() async throws {
    try await withTemporaryDirectory { dir in
      // The re-insert's photo still staged, and an older photo of the same id parked by a
      // delete whose clean-up never ran, named so that it is listed first or last.
      let (entry, image, published) = try await Self.stagedAfterCommit("Reinserted", in: dir)
      let files = StoreFiles(root: dir)
      for suffix in ["0", "~"] {
        try randomImage(2_000).write(
          to: URL(fileURLWithPath: files.tmpPath + "/\(entry.id).image.trash-\(suffix)"))
      }
      do {
        let store = try openStore(dir)
        #expect(try await store.imageData(for: entry.id) == image)
        #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
        try store.close()
      }
      // Only a parked photo that is not the row's: removed, not put in the photo's place.
      try FileManager.default.removeItem(atPath: published)
      try randomImage(2_000).write(
        to: URL(fileURLWithPath: files.trashPath(id: entry.id, kind: .image)))
      let store = try openStore(dir)
      #expect(filesUnder(dir.appendingPathComponent("tmp")).isEmpty)
      await #expect(throws: DexStoreError.imageMissing(id: entry.id)) {
        _ = try await store.imageData(for: entry.id)
      }
    }
  }

  /// While another store has the directory open, its in-flight files must not be swept.
  @Test func doesNotSweepWhileAnotherStoreIsOpen() async throws {
    try await withTemporaryDirectory { dir in
      let first = try openStore(dir)
      let files = StoreFiles(root: dir)
      let inFlight = files.stagedPath(id: UUID().uuidString, kind: .image)
      try randomImage().write(to: URL(fileURLWithPath: inFlight))
      let second = try openStore(dir)
      #expect(FileManager.default.fileExists(atPath: inFlight))
      try second.close()
      try first.close()
      // A process another test spawns at this moment holds a copy of the lock's descriptor
      // until it execs (O_CLOEXEC closes it only then), so one open may still find the
      // directory shared and rightly leave the file; a later open must sweep it.
      var opens = 0
      while FileManager.default.fileExists(atPath: inFlight), opens < 100 {
        if opens > 0 { try await Task.sleep(for: .milliseconds(100)) }
        try openStore(dir).close()
        opens += 1
      }
      #expect(!FileManager.default.fileExists(atPath: inFlight), "still there after \(opens) opens")
    }
  }

  @Test func corruptDatabaseIsReportedAndLeftUntouched() async throws {
    try await withTemporaryDirectory { dir in
      var entry = makeEntry("Survivor")
      do {
        let store = try openStore(dir)
        entry = try await store.insert(entry, image: randomImage())
        try store.close()
      }
      let databaseURL = dir.appendingPathComponent("Dex.sqlite")
      var bytes = try Data(contentsOf: databaseURL)
      for index in 0..<100 { bytes[index] = UInt8(truncatingIfNeeded: index &* 37 &+ 11) }
      try bytes.write(to: databaseURL)
      let imagesBefore = filesUnder(dir.appendingPathComponent("images"))

      #expect {
        _ = try openStore(dir)
      } throws: { error in
        guard case .corruptDatabase = error as? DexStoreError else { return false }
        return true
      }
      #expect(try Data(contentsOf: databaseURL) == bytes, "the damaged file must not be rewritten")
      #expect(filesUnder(dir.appendingPathComponent("images")) == imagesBefore)
      #expect(imagesBefore.count == 1)
    }
  }

  @Test func damagedPagesSurfaceAsCorruptDatabase() async throws {
    try await withTemporaryDirectory { dir in
      do {
        let store = try openStore(dir)
        var batch: [DexInsertion] = []
        for index in 0..<400 {
          batch.append(
            DexInsertion(
              entry: makeEntry("Entry \(index)", summary: String(repeating: "text ", count: 100)),
              image: randomImage(32)))
        }
        _ = try await store.insert(contentsOf: batch)
        try store.close()
      }
      let databaseURL = dir.appendingPathComponent("Dex.sqlite")
      var bytes = try Data(contentsOf: databaseURL)
      // Scribble over every page after the first few (the header and schema stay readable).
      let pageSize = 4_096
      for page in stride(from: 6, to: bytes.count / pageSize, by: 1) {
        for offset in 0..<64 { bytes[page * pageSize + offset] = 0xA5 }
      }
      try bytes.write(to: databaseURL)
      let failure: (any Error)? = await {
        do {
          let store = try openStore(dir)
          _ = try await store.allEntries()
          _ = try await store.verifyIntegrity(verifyingHashes: false)
          return nil
        } catch {
          return error
        }
      }()
      guard case .corruptDatabase = failure as? DexStoreError else {
        Issue.record("expected corruptDatabase, got \(String(describing: failure))")
        return
      }
    }
  }

  /// `RLIMIT_FSIZE` in a child (SIGXFSZ ignored) makes writes fail with EFBIG as on a full disk.
  @Test func fullDiskGivesDiskFullAndLosesNothing() async throws {
    try await withTemporaryDirectory { dir in
      var existing: [DexEntry] = []
      var images: [String: Data] = [:]
      do {
        let store = try openStore(dir)
        for index in 0..<5 {
          let image = randomImage(1_000)
          let entry = try await store.insert(makeEntry("Stored \(index)"), image: image)
          existing.append(entry)
          images[entry.id] = image
        }
        try store.close()
      }
      let results = try await runProbe(["fsize", dir.path, "262144"])
      #expect(results["setrlimit"] == nil)
      #expect(results["countBefore"] == "5")
      #expect(results["bigImage"] == "diskFull")
      #expect(results["countAfterBigImage"] == "5")
      #expect(results["bigText"] == "diskFull")
      #expect(results["countAfterBigText"] == "5")
      #expect(results["countAfterSmall"] == "6", "\(results)")
      #expect(results["done"] == "1", "\(results)")

      let store = try openStore(dir)
      #expect(try await store.count() == 6)
      for entry in existing {
        #expect(try await store.entry(id: entry.id) == entry)
        #expect(try await store.imageData(for: entry.id) == images[entry.id])
      }
      let report = try await store.verifyIntegrity()
      #expect(report.isHealthy, "\(report)")
    }
  }

  /// Root ignores permission bits, so the probe drops to `nobody` before touching the store.
  @Test func readOnlyDirectoryGivesUnwritableAndLosesNothing() async throws {
    try await withTemporaryDirectory { dir in
      // 1. An existing store whose directory the process cannot write.
      let storeDir = dir.appendingPathComponent("Existing.store")
      let entry: DexEntry
      do {
        let store = try openStore(storeDir)
        entry = try await store.insert(makeEntry("Existing"), image: randomImage())
        try store.close()
      }
      let writableDirs = [storeDir.path, storeDir.appendingPathComponent("tmp").path]
      if geteuid() != 0 { for path in writableDirs { chmod(path, 0o555) } }
      defer { for path in writableDirs { chmod(path, 0o755) } }
      let existing = try await runProbe(["readonly", storeDir.path, "existing"])
      #expect(existing["dropPrivileges"] == "ok")
      #expect(existing["open"] == "unwritableDirectory", "\(existing)")
      for path in writableDirs { chmod(path, 0o755) }
      let store = try openStore(storeDir)
      #expect(try await store.entry(id: entry.id) == entry)
      #expect(try await store.verifyIntegrity().isHealthy)
      try store.close()

      // 2. Write permission revoked while the store is open.
      let ownedDir = dir.appendingPathComponent("Owned.store")
      try FileManager.default.createDirectory(at: ownedDir, withIntermediateDirectories: true)
      if geteuid() == 0 { chown(ownedDir.path, 65534, 65534) }
      let revoked = try await runProbe(["readonly", ownedDir.path, "revoked"])
      #expect(revoked["insertReadOnly"] == "unwritableDirectory", "\(revoked)")
      #expect(revoked["countAfter"] == "1")
      #expect(revoked["done"] == "1", "\(revoked)")
      let reopened = try openStore(ownedDir)
      let names = try await reopened.allEntries().map(\.commonName)
      #expect(Set(names) == ["Kept", "After"])
      #expect(try await reopened.verifyIntegrity().isHealthy)
    }
  }
}
