// Times DexImaging's classifier: the network alone and end to end from encoded bytes.
//
//   classifier-bench <image.ppm> [--runs N] [--warmup N] [--threads T] [--concurrency K]
//                    [--skip-end-to-end] [--serve | --serve-end-to-end]
//                    [--backend automatic|oneDNN|portable]
//                    [--precision automatic|float32|int8]
//   classifier-bench --logits-of <inputs.f32> [--out <logits.f32>] [--backend ...] [--precision ...]
//   classifier-bench --subject-squares-of <folder>
//
// Prints one JSON object: per-run latencies in milliseconds for "network" (preprocessed input to
// logits) and "endToEnd" (encoded bytes to LocalGuess), each inference spread over T cores, with
// K requests in flight at once.
//
// With --serve it prints "ready" after the warm-up, then runs one network pass for each line it
// reads from standard input and prints that pass's milliseconds, until end of input: bench.py
// alternates single passes of two such servers, so that each pair of passes shares the host's
// conditions. With --serve-end-to-end each line runs the end-to-end guess instead (the image
// file's pixels to LocalGuess, every view the calibration runs): ab.py --end-to-end.
//
// With --logits-of it reads network inputs (224 x 224 x 3 little-endian float32 each, NHWC, as
// ImagePreprocessor makes them; Scripts/classifier-evalset.py writes the evaluation set's) and
// writes each one's 1000 logits as little-endian float32 to --out (standard output without
// it), then prints the backend, instruction set and precision that computed them on standard
// error: how the evaluation set is judged on the engine itself (int8 has no other
// implementation to ask).
//
// With --subject-squares-of it checks DexImaging's subject square against the script's:
// the folder holds squares.json (each photo's name: [x, y, side, red, green, blue], or null where
// the script finds no square), NAME.ppm (the pixels the script judged) and, for each square,
// NAME.input (the script's network input for it, as --logits-of reads them). It prints how many
// squares differ and the largest difference between the two network inputs, and exits 1 if any
// square differs (`Scripts/classifier-evalset.py subject-parity` writes the folder and runs it).
//
// Without --precision the model is the default configuration's (`ClassifierModel.bundled`: int8
// where oneDNN has VNNI, f32 elsewhere).
import DexImaging
import Foundation

struct Options {
  var path = ""
  var runs = 50
  var warmup = 3
  var concurrency = 1
  var threads = 1
  var endToEnd = true
  var serve = false
  /// Each served line runs the end-to-end guess, not one network pass.
  var serveEndToEnd = false
  var backend = ClassifierBackend.automatic
  var precision: ClassifierPrecision?
  var logitsOf: String?
  var out: String?
  var subjectSquaresOf: String?
}

func parse() -> Options? {
  var options = Options()
  var args = CommandLine.arguments.dropFirst()
  while let arg = args.popFirst() {
    switch arg {
    case "--runs": options.runs = Int(args.popFirst() ?? "") ?? options.runs
    case "--warmup": options.warmup = Int(args.popFirst() ?? "") ?? options.warmup
    case "--concurrency": options.concurrency = max(1, Int(args.popFirst() ?? "") ?? 1)
    case "--threads": options.threads = max(1, Int(args.popFirst() ?? "") ?? 1)
    case "--skip-end-to-end": options.endToEnd = false
    case "--serve": options.serve = true
    case "--serve-end-to-end": (options.serve, options.serveEndToEnd) = (true, true)
    case "--backend":
      guard let backend = ClassifierBackend(rawValue: args.popFirst() ?? "") else { return nil }
      options.backend = backend
    case "--precision":
      guard let precision = ClassifierPrecision(rawValue: args.popFirst() ?? "") else { return nil }
      options.precision = precision
    case "--logits-of": options.logitsOf = args.popFirst()
    case "--out": options.out = args.popFirst()
    case "--subject-squares-of": options.subjectSquaresOf = args.popFirst()
    default: options.path = arg
    }
  }
  return options.path.isEmpty && options.logitsOf == nil && options.subjectSquaresOf == nil
    ? nil : options
}

/// The bundled model as `options` ask: the default precision unless one is named.
func loadModel(_ options: Options) throws -> ClassifierModel {
  guard let precision = options.precision else {
    return try ClassifierModel.bundled(backend: options.backend)
  }
  return try ClassifierModel.bundled(backend: options.backend, precision: precision)
}

/// `--logits-of`: the logits of every input in the file, in order.
func writeLogits(of path: String, to out: String?, model: ClassifierModel) throws {
  struct Truncated: Error {}
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  let inputSize = 224 * 224 * 3
  let stride = inputSize * MemoryLayout<Float>.size
  guard data.count % stride == 0 else { throw Truncated() }
  var output = Data()
  for start in Swift.stride(from: 0, to: data.count, by: stride) {
    let input = data[start..<start + stride].withUnsafeBytes { raw in
      (0..<inputSize).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(
        fromByteOffset: $0 * 4, as: UInt32.self))) }
    }
    for value in try model.logits(forNetworkInput: input) {
      withUnsafeBytes(of: value.bitPattern.littleEndian) { output.append(contentsOf: $0) }
    }
  }
  if let out {
    try output.write(to: URL(fileURLWithPath: out))
  } else {
    FileHandle.standardOutput.write(output)
  }
  FileHandle.standardError.write(Data(
    "\(data.count / stride) inputs, backend \(model.backend.rawValue), isa \(model.instructionSet ?? "none"), precision \(model.precision.rawValue)\n".utf8))
}

/// `--subject-squares-of`: DexImaging's square and network input against the script's, photo
/// by photo; the number of squares that differ.
func checkSubjectSquares(in folder: String) throws -> Int {
  struct BadFolder: Error, CustomStringConvertible { var description: String }
  let root = URL(fileURLWithPath: folder)
  guard let expected = try JSONSerialization.jsonObject(
    with: Data(contentsOf: root.appendingPathComponent("squares.json"))) as? [String: Any]
  else { throw BadFolder(description: "squares.json is not an object") }
  let preprocessor = ImagePreprocessor()
  var differing = 0
  var squares = 0
  var largest: Float = 0
  for name in expected.keys.sorted() {
    let image = try readPPM(Data(contentsOf: root.appendingPathComponent(name + ".ppm")))
    let square = preprocessor.subjectSquare(in: image)
    let want = (expected[name] as? [Int]).map { v in
      SubjectSquare(x: v[0], y: v[1], side: v[2], background: .init(
        red: UInt8(v[3]), green: UInt8(v[4]), blue: UInt8(v[5])))
    }
    guard square == want else {
      differing += 1
      print("\(name): ours \(square.map { "\($0)" } ?? "none"), the script's \(want.map { "\($0)" } ?? "none")")
      continue
    }
    guard let square, let input = preprocessor.networkInput(from: image, square: square) else {
      continue
    }
    squares += 1
    let reference = try Data(contentsOf: root.appendingPathComponent(name + ".input"))
    guard reference.count == input.count * 4 else {
      throw BadFolder(description: "\(name).input: \(reference.count) bytes")
    }
    reference.withUnsafeBytes { raw in
      for i in input.indices {
        let value = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(
          fromByteOffset: i * 4, as: UInt32.self)))
        largest = max(largest, abs(value - input[i]))
      }
    }
  }
  print("\(expected.count) photos: \(squares) squares alike, \(differing) differing; largest network-input difference \(largest)")
  return differing
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Runs `body` `runs` times on `concurrency` threads; returns every latency.
func measure(runs: Int, concurrency: Int, _ body: @escaping @Sendable () throws -> Void) -> [Double]
{
  let lock = NSLock()
  nonisolated(unsafe) var times: [Double] = []
  let perThread = (runs + concurrency - 1) / concurrency
  DispatchQueue.concurrentPerform(iterations: concurrency) { _ in
    for _ in 0..<perThread {
      let t = (try? milliseconds(body)) ?? .nan
      lock.lock()
      times.append(t)
      lock.unlock()
    }
  }
  return times
}

/// The fixtures' binary PPM (`P6 <width> <height> 255`, one whitespace byte, RGB samples): a
/// benchmark input format only, so that decoding costs nothing and reads the same on every side.
func readPPM(_ data: Data) throws -> RGBImage {
  struct NotPPM: Error {}
  let bytes = [UInt8](data)
  var fields: [Int] = []
  var index = 2
  guard bytes.starts(with: Array("P6".utf8)) else { throw NotPPM() }
  while fields.count < 3, index < bytes.count {
    while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
    var value = 0
    while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
      value = value * 10 + Int(bytes[index] - 0x30)
      index += 1
    }
    fields.append(value)
  }
  guard fields.count == 3, fields[2] == 255,
    let image = RGBImage(
      width: fields[0], height: fields[1], pixels: Array(bytes[min(index + 1, bytes.count)...]))
  else { throw NotPPM() }
  return image
}

guard let options = parse() else {
  FileHandle.standardError.write(
    Data("usage: classifier-bench <image.ppm> [--runs N] [--concurrency K]\n".utf8))
  exit(2)
}
do {
  if let inputs = options.logitsOf {
    try writeLogits(of: inputs, to: options.out, model: loadModel(options))
    exit(0)
  }
  if let folder = options.subjectSquaresOf {
    exit(try checkSubjectSquares(in: folder) == 0 ? 0 : 1)
  }
  let data = try Data(contentsOf: URL(fileURLWithPath: options.path))
  let loadMs = try milliseconds { _ = try loadModel(options) }
  let model = try loadModel(options)
  let image = try readPPM(data)
  let input = model.preprocessor.networkInput(from: image)
  let threads = options.threads
  for _ in 0..<options.warmup {
    _ = try model.logits(forNetworkInput: input, threads: threads)
  }
  // As ImageClassifier's default configuration decides: the whole distribution from the views
  // the calibration fitted for the model's precision runs (a second pass on a plain
  // background), that calibration, the names below the category.
  let guess: @Sendable () throws -> Void = {
    let image = try readPPM(data)
    let distribution = try model.rankedLabels(
      for: image, limit: .max, views: model.calibration.views, threads: threads)
    _ = ImageClassifier.guess(fromDistribution: distribution, calibration: model.calibration)
  }
  if options.serve {
    if options.serveEndToEnd {
      for _ in 0..<options.warmup { try guess() }
    }
    // Unbuffered: the driver waits for each line.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while readLine() != nil {
      let ms = try milliseconds {
        if options.serveEndToEnd {
          try guess()
        } else {
          _ = try model.logits(forNetworkInput: input, threads: threads)
        }
      }
      FileHandle.standardOutput.write(Data("\(ms)\n".utf8))
    }
    exit(0)
  }
  let network = measure(runs: options.runs, concurrency: options.concurrency) {
    _ = try model.logits(forNetworkInput: input, threads: threads)
  }
  let endToEndRuns = options.endToEnd ? options.runs : 0
  let endToEnd = measure(runs: endToEndRuns, concurrency: options.concurrency) { try guess() }
  let top = model.rankedLabels(
    logits: try model.logits(forNetworkInput: input), limit: 1)
  let result: [String: Any] = [
    "loadMs": loadMs, "network": network, "endToEnd": endToEnd,
    "top1": top.first?.label ?? "", "concurrency": options.concurrency, "threads": threads,
    "backend": model.backend.rawValue, "isa": model.instructionSet ?? "none",
    "precision": model.precision.rawValue,
  ]
  let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
  print(String(decoding: json, as: UTF8.self))
} catch {
  FileHandle.standardError.write(Data("classifier-bench: \(error)\n".utf8))
  exit(1)
}
