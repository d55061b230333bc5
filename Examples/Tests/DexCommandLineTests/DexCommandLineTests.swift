import DexExamplesTestSupport
import Foundation
import Testing

/// The built `dex` executable, run as a user would against a temporary store.
struct DexCLI {
  let executable: URL
  let store: URL

  struct Run {
    let status: Int32
    let output: String
    let error: String
  }

  init() throws {
    executable = try #require(
      BuiltExecutable.named("dex"), "dex not built next to the tests: \(BuiltExecutable.folders)")
    store = FileManager.default.temporaryDirectory
      .appendingPathComponent("dex-cli-\(UUID().uuidString)", isDirectory: true)
  }

  /// Runs `dex` with `arguments` and the temporary store; awaits its exit without blocking a
  /// cooperative thread (each run loads the model and scans in a debug build).
  @discardableResult
  func callAsFunction(
    _ arguments: String..., environment: [String: String] = [:]
  ) async throws -> Run {
    // No backend: the run must be fully offline whatever the machine's environment says.
    var base = ProcessInfo.processInfo.environment
    for key in [
      "DEX_CLOUD_BASE_URL", "DEX_CLOUD_BOOTSTRAP_KEY", "DEX_STORE",
    ] {
      base[key] = nil
    }
    base["HOME"] = store.path  // no stray ~/.config/dex/config.json
    let outcome = try await ChildProcess.run(
      executable, arguments: arguments + ["--store", store.path],
      environment: base.merging(environment) { $1 })
    return Run(
      status: outcome.status, output: String(decoding: outcome.standardOutput, as: UTF8.self),
      error: String(decoding: outcome.standardError, as: UTF8.self))
  }

  func cleanUp() { try? FileManager.default.removeItem(at: store) }

  /// `name` in the store's folder, which is made if it is not there yet.
  func file(_ name: String) throws -> URL {
    try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
    return store.appendingPathComponent(name)
  }

  /// The custom-classifier example, built beside `dex`.
  var customClassifier: URL {
    executable.deletingLastPathComponent().appendingPathComponent("custom-classifier")
  }
}

/// A wrapper script (`sh -c`) whose model, `sleep 600`, is a process of its own; the model's
/// pid is written to the file named by the script's `$0`.
let wrapperScript = "sleep 600 & echo $! > \"$0\"; wait"

/// Whether process `pid` ends (or is a zombie waiting for init) within five seconds; one that
/// does not is killed, so that no test leaves it behind.
func ended(_ pid: pid_t) async throws -> Bool {
  for _ in 0..<50 {
    if !ProcessState.isLive(pid) { return true }
    try await Task.sleep(for: .milliseconds(100))
  }
  kill(pid, SIGKILL)
  return false
}

/// A photo of the SDK's sample set (`Sources/DexKitTesting/SamplePhotos` at the repository
/// root; their sources and licences are in `SOURCES.md` there).
func photoPath(_ name: String) throws -> String {
  let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let url = root.appendingPathComponent("Sources/DexKitTesting/SamplePhotos/\(name).jpg")
  try #require(FileManager.default.fileExists(atPath: url.path), "missing test photo \(url.path)")
  return url.path
}

@Suite("dex command line", .serialized)
struct DexCommandLineTests {
  @Test func customClassifierFindsItsScriptFromAnyFolder() async throws {
    let dex = try DexCLI()
    let example = dex.customClassifier
    let elsewhere = FileManager.default.temporaryDirectory
    let run = try await ChildProcess.run(
      example, arguments: [try photoPath("fruit")], in: elsewhere)
    let output = String(decoding: run.standardOutput, as: UTF8.self)
    #expect(run.status == 0, "\(String(decoding: run.standardError, as: UTF8.self))")
    // labels.sh answers "pebble" for a small photo: the bundled script ran.
    #expect(output.contains("Looks like Mineral: pebble"), "\(output)")
    // "pebble" at 0.55 is below the naming threshold: the entry is named by its category.
    #expect(output.contains("Entry: Unidentified mineral [Mineral]"), "\(output)")
  }

  /// The example fails as a script expects: a file it cannot scan exits non-zero, and so does
  /// a scan whose command closes its input unread and prints nothing (the photo is a file on
  /// its standard input, not a pipe: swift-subprocess 1.0.2 traps when a child closes a pipe it
  /// is still writing to, which this case did), with the usage and errors on standard error.
  @Test func customClassifierFailuresExitNonZero() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let example = dex.customClassifier
    let notes = try dex.file("notes.txt")
    try Data("not a photo\n".utf8).write(to: notes)
    let text = try await ChildProcess.run(example, arguments: [notes.path])
    #expect(text.status == 65, "\(String(decoding: text.standardOutput, as: UTF8.self))")
    let silent = try await ChildProcess.run(
      example, arguments: [try photoPath("cat"), "--", "sh", "-c", "exec 0<&-; sleep 1"])
    #expect(silent.status == 65, "status \(silent.status)")
    let usage = try await ChildProcess.run(example, arguments: [])
    #expect(usage.status == 64)
    #expect(String(decoding: usage.standardError, as: UTF8.self).contains("usage:"))
    let missing = try await ChildProcess.run(example, arguments: ["/nonexistent/photo.jpg"])
    #expect(missing.status == 66)
  }

  /// A command that never ends is killed at the example's time limit: the scan has no guess,
  /// so the example exits 65, long before the command would have ended (a run still going after
  /// 20 s, short of the 30 s default, fails the test). A time limit that is not whole seconds
  /// from 1 to a day is usage.
  @Test func customClassifierKillsACommandPastItsTimeLimit() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let example = dex.customClassifier
    let photo = try photoPath("cat")
    // A wrapper script whose model (here `sleep`) is a process of its own: both are killed.
    let pidFile = try dex.file("model.pid")
    let stuck = try await ChildProcess.run(
      example,
      arguments: [
        photo, "--time-limit", "3", "--", "sh", "-c", wrapperScript, pidFile.path,
      ],
      timeLimit: .seconds(20))
    #expect(stuck.status == 65 && !stuck.killedBySignal, "status \(stuck.status)")
    #expect(String(decoding: stuck.standardOutput, as: UTF8.self).contains("Failed:"))
    #expect(
      String(decoding: stuck.standardError, as: UTF8.self).contains("did not end within"))
    let written = try #require(
      try? String(contentsOf: pidFile, encoding: .utf8), "the wrapper never wrote its model's pid")
    let model = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(try await ended(model), "the wrapper's model \(model) outlived the time limit")
    for limit in ["0", "1.5", "86401", "soon"] {
      let refused = try await ChildProcess.run(
        example, arguments: [photo, "--time-limit", limit, "--", "sleep", "600"],
        timeLimit: .seconds(60))
      #expect(refused.status == 64, "--time-limit \(limit)")
      #expect(
        String(decoding: refused.standardError, as: UTF8.self).contains("--time-limit"),
        "--time-limit \(limit)")
    }
  }

  /// Ctrl-C reaches the command, in its process group of its own, through the example: the
  /// scan is cancelled, the command's whole group killed, and the example ends as interrupted.
  @Test func anInterruptedExampleTakesItsCommandWithIt() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let example = dex.customClassifier
    let pidFile = try dex.file("model.pid")
    let run = try await ChildProcess.withOutput(
      of: example,
      arguments: [
        try photoPath("cat"), "--", "sh", "-c", wrapperScript, pidFile.path,
      ], timeLimit: .seconds(60)
    ) { reader -> Int32? in
      // Once the model runs (its pid written), interrupt the example.
      var model: Int32?
      for _ in 0..<400 where model == nil {
        model = (try? String(contentsOf: pidFile, encoding: .utf8))
          .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if model == nil { try await Task.sleep(for: .milliseconds(50)) }
      }
      guard let model else { return nil }
      kill(reader.processIdentifier, SIGINT)
      try await reader.readToEnd()
      return model
    }
    let model = try #require(run.result, "the wrapper never wrote its model's pid")
    #expect(
      run.outcome.status == 130 && !run.outcome.killedBySignal,
      "status \(run.outcome.status), signal \(run.outcome.killedBySignal)")
    #expect(try await ended(model), "the wrapper's model \(model) outlived the interruption")
  }

  @Test func anOfflineFlowerSaysOnlyWhatTheClassifierKnows() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let scan = try await dex("scan", "--offline", try photoPath("flower"))
    #expect(scan.status == 0, "\(scan.error)")
    #expect(
      scan.output.contains("│ Unidentified plant")
        || scan.output.contains("│ Not sure — maybe a plant"),
      "\(scan.output)")
    #expect(scan.output.contains("Daisy") == false, "\(scan.output)")
    // The headline's percentage is the category's; the fine label is shown apart with its own.
    #expect(scan.output.contains("% (on-device label: "), "\(scan.output)")
  }

  @Test func scanListShowExportImportDelete() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }

    let scan = try await dex("scan", try photoPath("insect"), try photoPath("fruit"))
    #expect(scan.status == 0, "\(scan.error)")
    #expect(scan.output.contains("Looks like an Insect…"))
    #expect(scan.output.contains("[Food]"))
    #expect(scan.output.contains("Field Notes") == false, "offline entries have no facts")
    #expect(scan.output.components(separatedBy: "Saved as").count == 3)

    let list = try await dex("list", "--json")
    #expect(list.status == 0)
    let entries = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]]
    let ids = try #require(entries?.compactMap { $0["id"] as? String })
    try #require(ids.count == 2)
    #expect(entries?.first?["commonName"] as? String == "Orange", "newest first")

    // The same photo again: the store keeps its one entry, and the command says so.
    let again = try await dex("scan", try photoPath("insect"))
    #expect(again.status == 0, "\(again.error)")
    #expect(again.output.contains("Already in your collection as \(ids[1])"))
    #expect(!again.output.contains("Saved as"))
    #expect(try await dex("list").output.contains("2 discoveries"))

    let filtered = try await dex("list", "--category", "insect")
    #expect(filtered.output.contains("1 discovery"))
    #expect(try await dex("list", "--category", "dragon").status == 64)
    #expect(try await dex("list", "--search", "orange").output.contains("Orange"))

    let show = try await dex("show", ids[0])
    #expect(show.status == 0)
    #expect(show.output.contains("Orange"))
    #expect(try await dex("show", "no-such-id").status == 66)

    let gallery = dex.store.appendingPathComponent("gallery")
    let html = try await dex("export", "--html", gallery.path)
    #expect(html.status == 0, "\(html.error)")
    let index = try String(
      contentsOf: gallery.appendingPathComponent("index.html"), encoding: .utf8)
    #expect(index.contains("2 discoveries"))
    #expect(index.contains("alt=\"Photo of Orange\""))
    #expect(!index.contains("<script"))
    let page = try String(
      contentsOf: gallery.appendingPathComponent("entries/\(ids[0]).html"), encoding: .utf8)
    #expect(page.contains("<meter"))
    let hero = try Data(contentsOf: gallery.appendingPathComponent("images/\(ids[0]).jpg"))
    #expect(hero.starts(with: [0xFF, 0xD8, 0xFF]))
    // The owner's only, like the store; a stale page from an earlier export goes.
    let heroMode = try FileManager.default.attributesOfItem(
      atPath: gallery.appendingPathComponent("images/\(ids[0]).jpg").path)[.posixPermissions]
    #expect((heroMode as? NSNumber)?.intValue == 0o600)
    #expect(index.contains("script-src 'none'"), "the page forbids scripts")
    let stale = gallery.appendingPathComponent("entries/00000000-0000-0000-0000-000000000000.html")
    try Data("old".utf8).write(to: stale)
    // What the export did not write is left alone: other files, and a folder named like a page.
    let kept = ["images/logo.jpg", "entries/about.html", "images/notes-thumb.jpg"].map {
      gallery.appendingPathComponent($0)
    }
    for file in kept { try Data("mine".utf8).write(to: file) }
    let folderLikeAPhoto = gallery.appendingPathComponent(
      "images/11111111-1111-1111-1111-111111111111.jpg")
    try FileManager.default.createDirectory(at: folderLikeAPhoto, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: folderLikeAPhoto.appendingPathComponent("inside.txt"))
    #expect(try await dex("export", "--html", gallery.path).status == 0)
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    for file in kept { #expect(FileManager.default.fileExists(atPath: file.path), "\(file.path)") }
    #expect(
      FileManager.default.fileExists(
        atPath: folderLikeAPhoto.appendingPathComponent("inside.txt").path))
    // Not written through a link put in place of a folder.
    let elsewhere = dex.store.appendingPathComponent("elsewhere")
    let linked = dex.store.appendingPathComponent("linked-gallery")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: linked.appendingPathComponent("images"), withDestinationURL: elsewhere)
    let refused = try await dex("export", "--html", linked.path)
    #expect(refused.status != 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)

    let archive = dex.store.appendingPathComponent("backup.tar").path
    #expect(try await dex("export", archive).status == 0)
    #expect(try await dex("delete", ids[0]).status == 0)
    #expect(try await dex("delete", ids[0]).status == 66)
    let imported = try await dex("import", archive)
    #expect(imported.output.contains("Imported 1, skipped 1"))
    #expect(try await dex("list").output.contains("2 discoveries"))
  }

  @Test func clearErrorsAndExitCodes() async throws {
    let dex = try DexCLI()
    defer { dex.cleanUp() }
    let missing = try await dex("scan", "/no/such/photo.jpg")
    #expect(missing.status == 66)
    #expect(missing.error.contains("Cannot read /no/such/photo.jpg"))

    let notAnImage = dex.store.appendingPathComponent("notes.jpg")
    try FileManager.default.createDirectory(at: dex.store, withIntermediateDirectories: true)
    try Data("just text".utf8).write(to: notAnImage)
    let unsupported = try await dex("scan", notAnImage.path)
    #expect(unsupported.status == 65)
    #expect(unsupported.error.contains("Unsupported image format"))

    let noKey = try await dex(
      "scan", try photoPath("cat"), environment: ["DEX_CLOUD_BASE_URL": "http://127.0.0.1:9"])
    #expect(noKey.status == 64)
    #expect(noKey.error.contains("no bootstrap key"))

    // An unreachable backend degrades to the offline entry rather than failing.
    let unreachable = try await dex(
      "scan", "--dry-run", try photoPath("cat"),
      environment: [
        "DEX_CLOUD_BASE_URL": "http://127.0.0.1:9", "DEX_CLOUD_BOOTSTRAP_KEY": "k-\(UUID())",
      ])
    #expect(unreachable.status == 0, "\(unreachable.error)")
    #expect(unreachable.output.contains("Identified offline"))
    #expect(!unreachable.output.contains("Saved as"), "--dry-run saves nothing")
  }
}
