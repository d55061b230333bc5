// libFuzzer entry point for DexImaging's decoder. Compiled by Scripts/fuzz-imaging.sh together
// with the DexImaging sources (as one module) and the ASan-instrumented C shim.
import Foundation
import Logging

private let downscaler = ImageDownscaler(logger: Logger(label: "fuzz"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let data = Data(bytes: start, count: count)
  // Bounded limits keep a single input under libFuzzer's RSS limit; the decode path is the same.
  var options = DecodingOptions(limits: DecodingLimits(maximumPixelCount: 8_000_000))
  options.allowsPartialImages = count % 2 == 0
  options.chromaUpsampling = ChromaUpsampling.allCases[count % 3]
  switch count % 4 {
  case 0:
    _ = try? downscaler.decodePixels(
      from: data, target: .fitting(maximumDimension: 64), options: options)
  case 1:
    _ = try? downscaler.decodePixels(from: data, target: .minimumShortSide(32), options: options)
  case 2:
    _ = try? downscaler.downscale(
      data, options: DownscaleOptions(maximumDimension: 48, decoding: options))
  default:
    // Full-size decode only for modest images so that each execution stays fast.
    options.limits.maximumPixelCount = 1_000_000
    _ = try? downscaler.decodePixels(from: data, target: .original, options: options)
  }
  return 0
}
