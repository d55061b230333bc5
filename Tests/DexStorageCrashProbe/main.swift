import DexModel
// A child process for the DexStorage reliability tests. It is SIGKILLed mid-write, run under a
// file-size limit, or run as an unprivileged user, and reports what it saw on stdout as
// `RESULT <name> <value>` lines. It uses only DexStorage's public API.
import DexStorage
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Appends a line to `fd` with a single write, so a SIGKILL never leaves half a line.
func appendLine(_ fd: Int32, _ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func report(_ name: String, _ value: String) {
  FileHandle.standardOutput.write(Data("RESULT \(name) \(value)\n".utf8))
}

func describe(_ error: any Error) -> String {
  guard let error = error as? DexStoreError else { return "other:\(type(of: error))" }
  switch error {
  case .diskFull: return "diskFull"
  case .unwritableDirectory: return "unwritableDirectory"
  case .corruptDatabase: return "corruptDatabase"
  case .busy: return "busy"
  default: return "dexStoreError:\(error)"
  }
}

func randomBytes(_ count: Int) -> Data {
  var words = [UInt64](repeating: 0, count: (count + 7) / 8)
  for index in words.indices { words[index] = UInt64.random(in: .min ... .max) }
  return words.withUnsafeBytes { Data($0.prefix(count)) }
}

func sampleEntry(_ name: String, summary: String = "A probe entry.") -> DexEntry {
  DexEntry(
    commonName: name, categoryRaw: DexCategory.allCases.randomElement()?.rawValue ?? "unknown",
    summary: summary, facts: ["written by the crash probe"], dateDiscovered: Date())
}

/// Inserts (and now and then deletes) entries forever, logging every operation that returned.
/// Log lines: `I <id> <imageHash> <thumbnailHash or ->`, `d <id>` before a delete starts and
/// `D <id>` after it returned.
func crashLoop(directory: URL, log: String) async throws {
  let fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
  guard fd >= 0 else { throw DexStoreError.io(operation: "open", path: log, detail: "\(errno)") }
  let store = try DexStore(
    configuration: .init(directory: directory, duplicatePolicy: .keepBoth))
  report("opened", "1")
  var mine: [String] = []
  var iteration = 0
  while true {
    iteration += 1
    if iteration % 7 == 0, let victim = mine.randomElement() {
      appendLine(fd, "d \(victim)")  // intent: a kill from here on may or may not delete it
      try await store.delete(id: victim)
      mine.removeAll { $0 == victim }
      appendLine(fd, "D \(victim)")
      continue
    }
    let image = randomBytes(Int.random(in: 1_000...64_000))
    let thumbnail = Bool.random() ? randomBytes(Int.random(in: 100...4_000)) : nil
    let stored = try await store.insert(
      sampleEntry("Probe \(iteration)"), image: image, thumbnail: thumbnail)
    mine.append(stored.id)
    appendLine(
      fd,
      "I \(stored.id) \(DexStore.contentHash(of: image)) \(thumbnail.map(DexStore.contentHash(of:)) ?? "-")"
    )
  }
}

/// Under `RLIMIT_FSIZE` (SIGXFSZ ignored, so writes fail with EFBIG): an image bigger than the
/// limit, and an entry whose text is bigger than the limit, must both fail as `diskFull`, and
/// the store must keep working for small writes afterwards.
func fileSizeLimit(directory: URL, limit: Int) async throws {
  signal(SIGXFSZ, SIG_IGN)
  var rlim = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
  #if os(Linux)
    let resource = Int32(RLIMIT_FSIZE.rawValue)
  #else
    let resource = RLIMIT_FSIZE
  #endif
  guard setrlimit(resource, &rlim) == 0 else {
    report("setrlimit", "failed")
    return
  }
  let store = try DexStore(configuration: .init(directory: directory, duplicatePolicy: .keepBoth))
  let before = try await store.count()
  report("countBefore", "\(before)")
  do {
    try await store.insert(sampleEntry("Too big a photo"), image: randomBytes(limit * 2))
    report("bigImage", "succeeded")
  } catch {
    report("bigImage", describe(error))
  }
  report("countAfterBigImage", "\(try await store.count())")
  do {
    let text = String(repeating: "lorem ipsum dolor sit amet ", count: limit / 8)
    try await store.insert(
      sampleEntry("Too long a summary", summary: text), image: randomBytes(500))
    report("bigText", "succeeded")
  } catch {
    report("bigText", describe(error))
  }
  report("countAfterBigText", "\(try await store.count())")
  do {
    let small = try await store.insert(sampleEntry("Small after full"), image: randomBytes(800))
    report("smallAfter", small.id)
  } catch {
    report("smallAfter", describe(error))
  }
  report("countAfterSmall", "\(try await store.count())")
  try store.close()
}

/// Runs as an unprivileged user when started as root (root ignores permission bits).
/// `existing`: opens a store whose directory it cannot write. `revoked`: creates a store, then
/// takes write permission away from its `tmp/` and `images/` and tries to insert.
func readOnly(directory: URL, scenario: String) async throws {
  if geteuid() == 0 {
    guard setgid(65534) == 0, setuid(65534) == 0 else {
      report("dropPrivileges", "failed")
      return
    }
  }
  report("dropPrivileges", geteuid() == 0 ? "stillRoot" : "ok")
  switch scenario {
  case "existing":
    do {
      let store = try DexStore(directory: directory)
      report("open", "succeeded")
      try store.close()
    } catch {
      report("open", describe(error))
    }
  default:
    let store = try DexStore(configuration: .init(directory: directory, duplicatePolicy: .keepBoth))
    let kept = try await store.insert(sampleEntry("Kept"), image: randomBytes(2_000))
    report("kept", kept.id)
    let root = directory.standardizedFileURL.path
    chmod(root + "/tmp", 0o555)
    do {
      try await store.insert(sampleEntry("Refused"), image: randomBytes(2_000))
      report("insertReadOnly", "succeeded")
    } catch {
      report("insertReadOnly", describe(error))
    }
    report("countAfter", "\(try await store.count())")
    chmod(root + "/tmp", 0o755)
    let again = try await store.insert(sampleEntry("After"), image: randomBytes(2_000))
    report("insertAfterRestore", again.id)
    try store.close()
  }
}

/// This process's peak resident set so far, in KiB: the VmHWM of /proc/self/status on Linux,
/// which starts afresh at exec (getrusage's ru_maxrss keeps the parent's peak from before the
/// exec, here the test process's), else getrusage.
func peakResidentKiB() -> Int {
  #if os(Linux)
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    {
      return value
    }
  #endif
  var usage = rusage()
  #if os(Linux)
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss
  #else
    getrusage(RUSAGE_SELF, &usage)
    return usage.ru_maxrss / 1_024
  #endif
}

/// Imports `archive` into the store and reports the peak RSS before and after, so that a test
/// can check the import's memory against the archive's size.
func importMeasuringMemory(directory: URL, archive: String) async throws {
  let store = try DexStore(configuration: .init(directory: directory))
  report("rssBeforeKiB", "\(peakResidentKiB())")
  let result = try await store.importArchive(from: URL(fileURLWithPath: archive))
  report("rssAfterKiB", "\(peakResidentKiB())")
  report("inserted", "\(result.inserted)")
  try store.close()
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  print("usage: DexStoreCrashProbe crash-loop|fsize|readonly|import <store-dir> [arg]")
  exit(64)
}
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
do {
  switch arguments[1] {
  case "crash-loop" where arguments.count >= 4:
    try await crashLoop(directory: directory, log: arguments[3])
  case "fsize" where arguments.count >= 4:
    try await fileSizeLimit(directory: directory, limit: Int(arguments[3]) ?? 262_144)
  case "readonly" where arguments.count >= 4:
    try await readOnly(directory: directory, scenario: arguments[3])
  case "import" where arguments.count >= 4:
    try await importMeasuringMemory(directory: directory, archive: arguments[3])
  default:
    print("unknown mode \(arguments[1])")
    exit(64)
  }
  report("done", "1")
} catch {
  report("error", describe(error))
  exit(1)
}
