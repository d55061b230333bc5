// custom-classifier: plugs a different on-device engine into DexScanner.
//
// `CommandClassifier` conforms to `ImageClassifying` by running any external program (a
// Python model, a shell script calling a local inference server, …). The program gets the
// scan's JPEG on standard input and prints ranked labels, one `label<TAB>confidence` per line.
// DexKit maps them to a category with `DexCategory.matching(fromLabels:)`; nothing else in the
// flow changes.
//
//   swift run custom-classifier photo.jpg -- python3 my_model.py
//   swift run custom-classifier photo.jpg --time-limit 5 -- ./slow-model.sh
//
// A command still running after the time limit (30 s unless given) is killed and gives no
// labels; so does one that fails or prints more than 64 KiB.
//
// Without a command it uses its bundled `labels.sh`, which answers from the photo's size alone,
// to show the wiring; it is found from any working directory.

import DexImaging
import DexKit
import DexTerminal
import Foundation
import Subprocess

#if canImport(System)
  import System
#else
  import SystemPackage
#endif

/// An `ImageClassifying` conformance backed by an external command.
struct CommandClassifier: ImageClassifying {
  let executable: URL
  let arguments: [String]
  /// How long the command may run; past it, it is killed and gives no labels.
  var timeLimit: Duration = .seconds(30)

  func classify(imageData: Data) async -> LocalGuess? {
    let ranked = await rankedLabels(imageData: imageData, limit: 8)
    guard let best = ranked.first else { return nil }
    let category = DexCategory.matching(fromLabels: ranked.map(\.label))
    return LocalGuess(category: category, label: best.label, confidence: best.confidence)
  }

  func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
    guard let output = await run(input: imageData) else { return [] }
    return output.split(whereSeparator: \.isNewline).prefix(limit).compactMap { line in
      let fields = line.split(separator: "\t")
      guard let label = fields.first.map(String.init), !label.isEmpty else { return nil }
      let confidence = fields.dropFirst().first.flatMap { Double($0) } ?? 0
      return ClassificationLabel(
        identifier: label, label: label, confidence: min(max(confidence, 0), 1),
        category: DexCategory.matching(fromLabels: [label]))
    }
  }

  /// The most a command may print (ranked labels are a few hundred bytes); past it the
  /// command's output is not used.
  static let maximumOutputBytes = 64 << 10

  /// What the command printed with `input` on its standard input; `nil` (and a line on
  /// standard error saying why) when it could not start, failed, printed more than
  /// ``maximumOutputBytes``, or ran past ``timeLimit``. The command's own standard error is
  /// this process's, so its messages (a traceback, a missing interpreter) show as they come.
  ///
  /// The photo reaches the command as a file on its standard input (written to a private
  /// temporary file, removed at once, its descriptor handed over), not through a pipe: a
  /// command may print before it reads, or exit without reading, and neither can block or end
  /// this process. (swift-subprocess 1.0.2 traps when a child closes a pipe it is still writing
  /// input to: swiftlang/swift-subprocess#367.) The command runs in a process group of its own,
  /// and the time limit kills the whole group: a wrapper script's model goes with it.
  private func run(input: Data) async -> String? {
    enum Ending: Sendable {
      case printed(String)
      case failed(String)
      case timedOut
    }
    guard !Task.isCancelled else { return nil }
    let photo: FileDescriptor
    do {
      photo = try Self.privateFile(holding: input)
    } catch {
      complain("custom-classifier: cannot hand the photo to the command: \(error)")
      return nil
    }
    defer { try? photo.close() }
    // The command's standard error is this process's, unless this one has none (`2>&-`: the
    // photo's file may then have taken descriptor 2): then /dev/null.
    let errors: FileDescriptor
    let ownErrors = fcntl(STDERR_FILENO, F_GETFD) != -1 && photo.rawValue != STDERR_FILENO
    do {
      errors = ownErrors ? .standardError : try FileDescriptor.open("/dev/null", .writeOnly)
    } catch {
      return nil
    }
    defer { if !ownErrors { try? errors.close() } }
    var platform = PlatformOptions()
    platform.processGroupID = 0  // a group of its own, led by the command
    platform.teardownSequence = [
      .send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .zero)
    ]
    let (executable, arguments, timeLimit) = (executable, arguments, timeLimit)
    let ending = await withTaskGroup(of: Ending.self) { group in
      group.addTask { [platform, errors] in
        do {
          let result = try await Subprocess.run(
            .path(FilePath(executable.path)), arguments: Arguments(arguments),
            platformOptions: platform,
            input: .fileDescriptor(photo, closeAfterSpawningProcess: false),
            output: .bytes(limit: Self.maximumOutputBytes),
            error: .fileDescriptor(errors, closeAfterSpawningProcess: false))
          guard result.terminationStatus.isSuccess else {
            return .failed("the command ended with \(result.terminationStatus)")
          }
          return .printed(String(decoding: result.standardOutput, as: UTF8.self))
        } catch {
          return .failed("the command failed: \(error)")
        }
      }
      group.addTask {
        try? await Task.sleep(for: timeLimit)
        return .timedOut
      }
      // Whichever ends first; cancelling the run kills the command's group.
      let first = await group.next()
      group.cancelAll()
      return first ?? .timedOut
    }
    switch ending {
    case .printed(let output): return output
    case .failed(let reason):
      if !Task.isCancelled { complain("custom-classifier: \(reason)") }
      return nil
    case .timedOut:
      if !Task.isCancelled {
        complain("custom-classifier: the command did not end within \(timeLimit) and was killed")
      }
      return nil
    }
  }

  /// A descriptor, at offset 0, of a file only this user could read that holds `data`; the
  /// file's name is removed first (its removal failing fails this), so nothing is left behind.
  private static func privateFile(holding data: Data) throws -> FileDescriptor {
    let path = FilePath(
      FileManager.default.temporaryDirectory
        .appendingPathComponent("custom-classifier-\(UUID().uuidString).jpg").path)
    let file = try FileDescriptor.open(
      path, .readWrite, options: [.create, .exclusiveCreate],
      permissions: [.ownerReadWrite])
    do {
      // Nameless at once: nothing is left behind, whatever happens next.
      guard unlink(path.string) == 0 else { throw Errno(rawValue: errno) }
      _ = try file.writeAll(data)
      _ = try file.seek(offset: 0, from: .start)
      return file
    } catch {
      try? file.close()
      throw error
    }
  }
}

/// Writes `message` and a line break to standard error.
func complain(_ message: String) {
  try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: custom-classifier <image> [--time-limit SECONDS] [-- command args…]"
guard let imagePath = arguments.first, imagePath != "--" else {
  complain(usage)
  exit(64)
}
let options = Array(arguments.dropFirst().prefix { $0 != "--" })
var timeLimit = Duration.seconds(30)
if !options.isEmpty {
  guard options.count == 2, options[0] == "--time-limit" else {
    complain(usage)
    exit(64)
  }
  // Whole seconds, 1 to a day: a bound, not a schedule.
  guard let seconds = Int(options[1]), (1...86_400).contains(seconds) else {
    complain("custom-classifier: --time-limit takes whole seconds from 1 to 86400\n\(usage)")
    exit(64)
  }
  timeLimit = .seconds(seconds)
}
let image: Data
do {
  // Only a regular file, at most the decoder's 100 MiB, refused before it is read.
  image = try LocalFile.read(imagePath, maximumByteCount: DecodingLimits.default.maximumByteCount)
} catch {
  complain("custom-classifier: \(error)")
  exit(66)
}
let command = arguments.drop { $0 != "--" }.dropFirst()
let classifier: CommandClassifier
if command.isEmpty {
  guard let script = Bundle.module.url(forResource: "labels", withExtension: "sh") else {
    complain("custom-classifier: the bundled labels.sh is missing")
    exit(70)
  }
  classifier = CommandClassifier(
    executable: URL(fileURLWithPath: "/bin/sh"), arguments: [script.path], timeLimit: timeLimit)
} else {
  classifier = CommandClassifier(
    executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: Array(command),
    timeLimit: timeLimit)
}

let scanner = DexScanner(classifier: classifier)
let scanning = Task { () -> Bool in
  var failed = false
  for await state in scanner.scan(image) {
    // The classifier's labels and the entry are someone else's text: printed safely.
    switch state.phase {
    case .capturing: print("Capturing…")
    case .analyzing:
      print(
        state.localGuess.map {
          "Looks like \($0.category.title): \(TerminalText.safe($0.label))"
        } ?? "Analyzing…")
    case .identifying:
      if let name = state.partialResult?.commonName {
        print("Identified: \(TerminalText.safe(name))…")
      }
    case .result:
      let name = TerminalText.safe(state.result?.commonName ?? "")
      print("Entry: \(name) [\(state.result?.dexCategory.title ?? "")]")
    case .failed:
      print("Failed: \(TerminalText.safe(state.error?.localizedDescription ?? ""))")
      failed = true
    }
  }
  return failed
}
// The command runs in a process group of its own (so that its time limit kills the whole
// group), which Ctrl-C, a closed terminal or a `kill` of this process does not reach: they
// cancel the scan instead, which kills the command's group, and this process then ends as
// interrupted (130). Should the scan not end within 5 s of that, it ends anyway.
let interruptions = [SIGINT, SIGTERM, SIGHUP].map { number in
  signal(number, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
  source.setEventHandler { [scanning] in
    scanning.cancel()
    DispatchQueue.global().asyncAfter(deadline: .now() + 5) { exit(130) }
  }
  source.resume()
  return source
}
let failed = await scanning.value
if scanning.isCancelled { exit(130) }
withExtendedLifetime(interruptions) {}
// A scan that failed is a failure for a script that runs this, too (EX_DATAERR).
if failed { exit(65) }
