// dex-isolation-bench: IsolatedImageDecoder against ImageDownscaler on the same photos, paired
// in one run (Benchmarks/DexImaging/isolation.sh).
//
//   dex-isolation-bench [--rounds N] PHOTO...
//
// Each round downscales every photo as a scan does (1024 px JPEG, 256 px thumbnail, the
// pixels kept) once in process and once in a worker, alternating which goes first; it prints
// each side's median, the median of the per-round ratios (the overhead) and the reply's size.
import DexImaging
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
var rounds = 15
if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count,
  let value = Int(arguments[index + 1]), value > 0
{
  rounds = value
  arguments.removeSubrange(index...(index + 1))
}
guard !arguments.isEmpty else {
  FileHandle.standardError.write(Data("usage: dex-isolation-bench [--rounds N] PHOTO...\n".utf8))
  exit(64)
}

let local = ImageDownscaler()
let isolated = IsolatedImageDecoder(maximumWorkers: 1)
let options = DownscaleOptions(maximumDimension: 1024, maximumThumbnailDimension: 256)
let clock = ContinuousClock()

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func timed(_ decoder: any ImageDownscaling, _ photo: Data) throws -> (Double, DownscaledImage) {
  let start = clock.now
  let result = try decoder.downscale(photo, options: options)
  return (milliseconds(clock.now - start), result)
}

print("photo                        MP    in-process ms  isolated ms  overhead  reply bytes")
for path in arguments {
  let photo = try Data(contentsOf: URL(fileURLWithPath: path))
  // A first decode of each: the worker is started and both sides' caches are warm.
  let (_, reference) = try timed(local, photo)
  let (_, first) = try timed(isolated, photo)
  guard first == reference else {
    print("\(path): the isolated result differs from the in-process one")
    exit(1)
  }
  var inProcess: [Double] = []
  var inWorker: [Double] = []
  var ratios: [Double] = []
  for round in 0..<rounds {
    let a: Double
    let b: Double
    if round % 2 == 0 {
      a = try timed(local, photo).0
      b = try timed(isolated, photo).0
    } else {
      b = try timed(isolated, photo).0
      a = try timed(local, photo).0
    }
    inProcess.append(a)
    inWorker.append(b)
    ratios.append(b / a)
  }
  let megapixels = Double(reference.sourcePixelWidth * reference.sourcePixelHeight) / 1e6
  let replyBytes =
    (reference.pixels?.pixels.count ?? 0) + reference.jpegData.count
    + (reference.thumbnailJPEG?.count ?? 0)
  let name = URL(fileURLWithPath: path).lastPathComponent
  print(
    name.padding(toLength: 28, withPad: " ", startingAt: 0)
      + String(
        format: " %4.1f  %13.1f  %11.1f  %+7.1f %%  %11d", megapixels, median(inProcess),
        median(inWorker), (median(ratios) - 1) * 100, replyBytes))
}
