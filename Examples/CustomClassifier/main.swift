// custom-classifier: plugs a different on-device engine into DexScanner.
//
// `CommandClassifier` conforms to `ImageClassifying` by running any external program (a
// Python model, a shell script calling a local inference server, …). The program gets the
// scan's JPEG on standard input and prints ranked labels, one `label<TAB>confidence` per line.
// DexKit maps them to a category with `DexCategory.matching(fromLabels:)`; nothing else in the
// flow changes.
//
//   swift run custom-classifier photo.jpg -- python3 my_model.py
//
// Without a command it uses its bundled `labels.sh`, which answers from the photo's size alone,
// to show the wiring; it is found from any working directory.

import DexImaging
import DexKit
import DexTerminal
import Foundation

/// An `ImageClassifying` conformance backed by an external command.
struct CommandClassifier: ImageClassifying {
  let executable: URL
  let arguments: [String]

  func classify(imageData: Data) async -> LocalGuess? {
    let ranked = await rankedLabels(imageData: imageData, limit: 8)
    guard let best = ranked.first else { return nil }
    let category = DexCategory.matching(fromLabels: ranked.map(\.label))
    return LocalGuess(category: category, label: best.label, confidence: best.confidence)
  }

  func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
    guard let output = try? run(input: imageData) else { return [] }
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
  /// command is stopped and its output not used.
  static let maximumOutputBytes = 64 << 10

  /// Runs the command with `input` on its standard input, written on a thread of its own while
  /// its output is read (a command that prints before it reads cannot deadlock the two), and
  /// returns what it printed; `""` when it failed or printed too much. A command that exits
  /// without reading its input does not end this process (SIGPIPE is ignored; the write fails).
  private func run(input: Data) throws -> String {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    let writing = stdin.fileHandleForWriting
    Thread.detachNewThread {
      try? writing.write(contentsOf: input)
      try? writing.close()
    }
    var output = Data()
    while output.count <= Self.maximumOutputBytes {
      let chunk = stdout.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      output.append(chunk)
    }
    if output.count > Self.maximumOutputBytes { process.terminate() }
    process.waitUntilExit()
    guard process.terminationStatus == 0, output.count <= Self.maximumOutputBytes else {
      return ""
    }
    return String(decoding: output, as: UTF8.self)
  }
}

// A command that exits without reading the photo must fail the write, not end this process.
signal(SIGPIPE, SIG_IGN)

/// Writes `message` and a line break to standard error.
func complain(_ message: String) {
  try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let imagePath = arguments.first else {
  complain("usage: custom-classifier <image> [-- command args…]")
  exit(64)
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
    executable: URL(fileURLWithPath: "/bin/sh"), arguments: [script.path])
} else {
  classifier = CommandClassifier(
    executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: Array(command))
}

let scanner = DexScanner(classifier: classifier)
var failed = false
for await state in scanner.scan(image) {
  switch state.phase {
  case .capturing: print("Capturing…")
  case .analyzing:
    print(state.localGuess.map { "Looks like \($0.category.title): \($0.label)" } ?? "Analyzing…")
  case .identifying:
    if let name = state.partialResult?.commonName { print("Identified: \(name)…") }
  case .result:
    print("Entry: \(state.result?.commonName ?? "") [\(state.result?.dexCategory.title ?? "")]")
  case .failed:
    print("Failed: \(state.error?.localizedDescription ?? "")")
    failed = true
  }
}
// A scan that failed is a failure for a script that runs this, too (EX_DATAERR).
if failed { exit(65) }
