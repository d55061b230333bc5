// Times ImageDownscaler on one file, in-process, for Benchmarks/DexImaging/bench.py.
//
//   dex-imaging-benchmark <image> <maximumDimension> <quality 0...1> <iterations> <output.jpg>
//
// Prints one JSON line: median and per-iteration milliseconds plus the output size. The file is
// read once before timing; each iteration is the full bytes -> JPEG bytes call.
import DexImaging
import Foundation

#if os(Linux) || os(Android)

  let arguments = CommandLine.arguments
  guard arguments.count == 6, let maximumDimension = Int(arguments[2]),
    let quality = Double(arguments[3]),
    let iterations = Int(arguments[4]), iterations > 0
  else {
    FileHandle.standardError.write(
      Data(
        "usage: dex-imaging-benchmark <image> <maximumDimension> <quality> <iterations> <output.jpg>\n"
          .utf8))
    exit(2)
  }

  let input = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
  let downscaler = ImageDownscaler()
  var options = DownscaleOptions(maximumDimension: maximumDimension, quality: quality)
  // Optional knobs for exploring the defaults: DEX_BENCH_GAP (reducing gap), DEX_BENCH_CHROMA
  // (automatic | smooth | fast).
  let environment = ProcessInfo.processInfo.environment
  if let gap = environment["DEX_BENCH_GAP"].flatMap(Double.init) {
    options.decoding.reducingGap = gap
  }
  switch environment["DEX_BENCH_CHROMA"] {
  case "smooth": options.decoding.chromaUpsampling = .smooth
  case "fast": options.decoding.chromaUpsampling = .fast
  case "automatic": options.decoding.chromaUpsampling = .automatic
  default: break
  }
  var timings: [Double] = []
  var last: DownscaledImage?
  let clock = ContinuousClock()
  // DEX_BENCH_WARMUPS (default 2): untimed runs first; 0 with one iteration times a cold,
  // single call, as a one-shot process like `vips thumbnail` does (Benchmarks/DexImaging/formats.py).
  let warmups = environment["DEX_BENCH_WARMUPS"].flatMap(Int.init).map { Swift.max(0, $0) } ?? 2
  for _ in 0..<(iterations + warmups) {
    let start = clock.now
    if environment["DEX_BENCH_DECODE_ONLY"] != nil {  // decode + resample, no encode
      let pixels = try downscaler.decodePixels(
        from: input, target: .fitting(maximumDimension: maximumDimension), options: options.decoding)
      last = DownscaledImage(
        jpegData: Data(), pixelWidth: pixels.width, pixelHeight: pixels.height,
        sourceFormat: .jpeg, sourcePixelWidth: 0, sourcePixelHeight: 0, appliedOrientation: .up,
        isPartial: false)
    } else {
      do {
        last = try downscaler.downscale(input, options: options)
      } catch {
        // A refused file (Benchmarks/DexImaging/hostile.sh): say why, as JSON, and stop.
        let reason = error.description.replacingOccurrences(of: "\"", with: "'")
        print("{\"error\": \"\(reason)\"}")
        exit(3)
      }
    }
    let elapsed = clock.now - start
    timings.append(
      Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
  }
  guard let last else { exit(1) }
  try last.jpegData.write(to: URL(fileURLWithPath: arguments[5]))
  let measured = timings.dropFirst(warmups).sorted()
  let median = measured[measured.count / 2]
  print(
    "{\"median_ms\": \(median), \"width\": \(last.pixelWidth), \"height\": \(last.pixelHeight), \"bytes\": \(last.jpegData.count)}"
  )
#else
  print("ImageDownscaler needs libjpeg-turbo and libpng; this benchmark runs on Linux.")
#endif
