import DexKit
import DexKitTesting
import Foundation
import Testing

// A compile-only check of the Apple sketches in Extending DexKit (ExtendingDexKit.md): the
// ImageIO downscaler, the Vision and Core ML classifiers and the VNRecognizeTextRequest text
// recognizer. The region between `sketch:begin` and `sketch:end` is the article's code, line for
// line (Scripts/lint.sh fails when the two differ). On Apple platforms it compiles against the
// real SDK; elsewhere against the minimal stand-ins below, which declare the Apple types and
// functions the sketch calls with the SDK's names and argument labels and do nothing. So on
// Linux the DexKit side (the protocols, initialisers, error cases and value types the sketch
// uses) is compiled for real, and the Apple side only against these stand-ins, not the SDK.

#if canImport(Vision) && canImport(ImageIO)
  import CoreML
  import ImageIO
  import UniformTypeIdentifiers
  import Vision
#elseif !canImport(ImageIO)
  // Core Foundation's bridged types, as far as the sketch needs them.
  typealias CFString = String
  typealias CFData = AnyObject
  typealias CFMutableData = NSMutableData
  typealias CFDictionary = NSDictionary

  // ImageIO and Core Graphics.
  final class CGImageSource {}
  final class CGImageDestination {}
  final class CGColorSpace {}
  final class CGDataProvider {
    init?(data: CFData) { nil }
  }
  struct CGBitmapInfo: OptionSet {
    let rawValue: UInt32
  }
  enum CGImageAlphaInfo: UInt32 {
    case none = 0
  }
  enum CGColorRenderingIntent: Int32 {
    case defaultIntent = 0
  }
  final class CGImage {
    let width = 0
    let height = 0
    init?(
      width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
      space: CGColorSpace, bitmapInfo: CGBitmapInfo, provider: CGDataProvider,
      decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool, intent: CGColorRenderingIntent
    ) { nil }
  }
  let kCGImageSourceCreateThumbnailFromImageAlways: CFString =
    "kCGImageSourceCreateThumbnailFromImageAlways"
  let kCGImageSourceCreateThumbnailWithTransform: CFString =
    "kCGImageSourceCreateThumbnailWithTransform"
  let kCGImageSourceThumbnailMaxPixelSize: CFString = "kCGImageSourceThumbnailMaxPixelSize"
  let kCGImagePropertyPixelWidth: CFString = "PixelWidth"
  let kCGImagePropertyPixelHeight: CFString = "PixelHeight"
  let kCGImageDestinationLossyCompressionQuality: CFString =
    "kCGImageDestinationLossyCompressionQuality"
  func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace() }
  func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
    nil
  }
  func CGImageSourceCreateImageAtIndex(
    _ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?
  ) -> CGImage? { nil }
  func CGImageSourceCreateThumbnailAtIndex(
    _ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?
  ) -> CGImage? { nil }
  func CGImageSourceCopyPropertiesAtIndex(
    _ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?
  ) -> CFDictionary? { nil }
  func CGImageDestinationCreateWithData(
    _ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?
  ) -> CGImageDestination? { nil }
  func CGImageDestinationAddImage(
    _ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?
  ) {}
  func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool { false }

  // UniformTypeIdentifiers.
  struct UTType {
    static let jpeg = UTType(identifier: "public.jpeg")
    let identifier: String
  }

  // Core ML and Vision.
  final class MLModel {
    init(contentsOf url: URL) throws { throw CocoaError(.fileReadNoSuchFile) }
  }
  typealias VNConfidence = Float
  class VNObservation {
    var confidence: VNConfidence { 0 }
  }
  final class VNClassificationObservation: VNObservation {
    var identifier: String { "" }
  }
  final class VNRecognizedText {
    var string: String { "" }
    var confidence: VNConfidence { 0 }
  }
  final class VNRecognizedTextObservation: VNObservation {
    var boundingBox: CGRect { .zero }
    func topCandidates(_ maxCandidateCount: Int) -> [VNRecognizedText] { [] }
  }
  class VNRequest {
    func cancel() {}
  }
  class VNImageBasedRequest: VNRequest {}
  final class VNClassifyImageRequest: VNImageBasedRequest {
    var results: [VNClassificationObservation]? { nil }
  }
  enum VNImageCropAndScaleOption: UInt {
    case centerCrop = 0
  }
  final class VNCoreMLModel {
    init(for model: MLModel) throws {}
  }
  final class VNCoreMLRequest: VNImageBasedRequest {
    var imageCropAndScaleOption = VNImageCropAndScaleOption.centerCrop
    var results: [VNObservation]? { nil }
    init(model: VNCoreMLModel) {}
  }
  final class VNRecognizeTextRequest: VNImageBasedRequest {
    var recognitionLanguages: [String] = []
    var results: [VNRecognizedTextObservation]? { nil }
  }
  struct VNImageOption: Hashable {}
  final class VNImageRequestHandler {
    init(cgImage image: CGImage, options: [VNImageOption: Any] = [:]) {}
    func perform(_ requests: [VNRequest]) throws {}
  }
#endif

#if canImport(Vision) || !canImport(ImageIO)
  // sketch:begin
  /// Pass 1 with Vision's built-in classifier (VNClassifyImageRequest and its taxonomy).
  struct VisionClassifier: ImageClassifying {
    func classify(imageData: Data) async -> LocalGuess? {
      ImageClassifier.guess(
        from: await rankedLabels(imageData: imageData, limit: 5), minimumConfidence: 0.1)
    }

    func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
      guard let image = cgImage(imageData) else { return [] }
      let request = VNClassifyImageRequest()
      do { try VNImageRequestHandler(cgImage: image).perform([request]) } catch { return [] }
      return (request.results ?? []).prefix(limit).map(label)
    }
  }

  /// Pass 1 with your own Core ML image classifier. An actor, because VNCoreMLModel is not
  /// Sendable; ImageClassifying's requirements are async, so the actor conforms directly.
  actor CoreMLClassifier: ImageClassifying {
    private let model: VNCoreMLModel

    init(compiledModelAt url: URL) throws {
      model = try VNCoreMLModel(for: MLModel(contentsOf: url))
    }

    func classify(imageData: Data) async -> LocalGuess? {
      ImageClassifier.guess(
        from: await rankedLabels(imageData: imageData, limit: 5), minimumConfidence: 0.1)
    }

    func rankedLabels(imageData: Data, limit: Int) async -> [ClassificationLabel] {
      guard let image = cgImage(imageData) else { return [] }
      let request = VNCoreMLRequest(model: model)
      request.imageCropAndScaleOption = .centerCrop
      do { try VNImageRequestHandler(cgImage: image).perform([request]) } catch { return [] }
      let observations = request.results as? [VNClassificationObservation] ?? []
      return observations.prefix(limit).map(label)
    }
  }

  /// Pass 0 with ImageIO: orientation applied, downscaled, JPEG-encoded once.
  struct ImageIODownscaler: ImageDownscaling {
    func downscale(
      _ imageData: Data, options: DownscaleOptions
    ) throws(ImagingError)
      -> DownscaledImage
    {
      // JPEG, PNG, HEIF, AVIF or WebP, as on Linux; ImageIO decodes all five natively.
      let format = try ImageFormat.sniff(imageData)
      guard let source = CGImageSourceCreateWithData(imageData as CFData, nil),
        let thumbnail = CGImageSourceCreateThumbnailAtIndex(
          source, 0,
          [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,  // applies EXIF orientation
            kCGImageSourceThumbnailMaxPixelSize: options.maximumDimension,
          ] as CFDictionary),
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any]
      else { throw .corruptData(format: format, message: "ImageIO could not decode it") }
      let output = NSMutableData()
      guard
        let destination = CGImageDestinationCreateWithData(
          output, UTType.jpeg.identifier as CFString, 1, nil)
      else { throw .encodingFailed(message: "no JPEG encoder") }
      CGImageDestinationAddImage(
        destination, thumbnail,
        [kCGImageDestinationLossyCompressionQuality: options.quality] as CFDictionary)
      guard CGImageDestinationFinalize(destination) else {
        throw .encodingFailed(message: "the JPEG encoder failed")
      }
      return DownscaledImage(
        jpegData: Data(referencing: output), pixelWidth: thumbnail.width,
        pixelHeight: thumbnail.height,
        sourceFormat: format,
        sourcePixelWidth: properties[kCGImagePropertyPixelWidth] as? Int ?? 0,
        sourcePixelHeight: properties[kCGImagePropertyPixelHeight] as? Int ?? 0,
        appliedOrientation: .up)
    }
  }

  /// Text with Vision's VNRecognizeTextRequest: the Apple counterpart of DexTextRecognition's
  /// `TesseractTextRecognizer`, over the same decoded pixels (`DownscaledImage.pixels`).
  struct VisionTextRecognizer: TextRecognizing {
    func recognizeText(
      in image: RGBImage, options: TextRecognitionOptions
    ) async throws
      -> RecognizedText
    {
      guard image.width * image.height <= options.maximumPixelCount else {
        throw TextRecognitionError.imageTooLarge(
          width: image.width, height: image.height, maximumPixelCount: options.maximumPixelCount)
      }
      guard let provider = CGDataProvider(data: Data(image.pixels) as CFData),
        let cgImage = CGImage(
          width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 24,
          bytesPerRow: image.width * 3, space: CGColorSpaceCreateDeviceRGB(),
          bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue), provider: provider,
          decode: nil, shouldInterpolate: false, intent: .defaultIntent)
      else { throw TextRecognitionError.recognitionFailed("not an RGB image") }
      let request = VNRecognizeTextRequest()
      request.recognitionLanguages = options.languages.map { Locale(identifier: $0).identifier }
      // Vision's own requests are cancellable: cancel on task cancellation, and bound the time
      // with a task group racing a sleep of `options.timeout` in a real host. VNRequest is not
      // Sendable, but cancel() exists to be called while perform runs elsewhere, so the
      // cancellation handler reaches the request through an unchecked box.
      let cancellable = CancellableRequest(request)
      try await withTaskCancellationHandler {
        try VNImageRequestHandler(cgImage: cgImage).perform([request])
      } onCancel: {
        cancellable.request.cancel()
      }
      try Task.checkCancellation()
      let lines = (request.results ?? []).compactMap { observation -> RecognizedTextLine? in
        guard let best = observation.topCandidates(1).first,
          Double(best.confidence) >= options.minimumConfidence
        else { return nil }
        let box = observation.boundingBox  // normalised, origin at the bottom left
        return RecognizedTextLine(
          text: best.string, confidence: Double(best.confidence),
          boundingBox: PixelRect(
            x: Int(box.minX * Double(image.width)),
            y: Int((1 - box.maxY) * Double(image.height)),
            width: Int(box.width * Double(image.width)),
            height: Int(box.height * Double(image.height))))
      }
      return RecognizedText(lines: lines)
    }
  }

  /// A Vision request handed to a task's cancellation handler (see VisionTextRecognizer).
  private final class CancellableRequest: @unchecked Sendable {
    let request: VNRequest
    init(_ request: VNRequest) { self.request = request }
  }

  private func cgImage(_ jpeg: Data) -> CGImage? {
    CGImageSourceCreateWithData(jpeg as CFData, nil)
      .flatMap { CGImageSourceCreateImageAtIndex($0, 0, nil) }
  }

  private func label(_ observation: VNClassificationObservation) -> ClassificationLabel {
    let words = observation.identifier.replacingOccurrences(of: "_", with: " ")
    return ClassificationLabel(
      identifier: observation.identifier, label: words,
      confidence: Double(observation.confidence),
      category: DexCategory.matching(fromLabels: [words]))
  }

  // let scanner = DexScanner(
  //   classifier: VisionClassifier(), visionService: vision,
  //   textRecognizer: VisionTextRecognizer(), downscaler: ImageIODownscaler())
  // sketch:end

  @Suite("Extending DexKit's Apple sketches")
  struct AppleSketchesTests {
    /// The sketch's types conform to DexKit's protocols and make a scanner; with the stand-ins
    /// every Apple call fails, so each conformance takes its failure path, as it would for a
    /// photo ImageIO cannot read.
    @Test func theSketchesConformAndFailCleanlyWithoutTheSDK() async throws {
      let downscaler: any ImageDownscaling = ImageIODownscaler()
      let classifier: any ImageClassifying = VisionClassifier()
      let recognizer: any TextRecognizing = VisionTextRecognizer()
      _ = DexScanner(classifier: classifier, textRecognizer: recognizer, downscaler: downscaler)
      #if !canImport(ImageIO)
        let photo = try SamplePhoto.cat.data
        #expect(
          throws: ImagingError.corruptData(format: .jpeg, message: "ImageIO could not decode it")
        ) {
          try downscaler.downscale(photo, options: DownscaleOptions())
        }
        #expect(await classifier.classify(imageData: photo) == nil)
        let gray = try #require(
          RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 9, count: 12)))
        await #expect(throws: TextRecognitionError.recognitionFailed("not an RGB image")) {
          try await recognizer.recognizeText(in: gray)
        }
        #expect(throws: CocoaError.self) {
          try CoreMLClassifier(compiledModelAt: URL(fileURLWithPath: "/nonexistent"))
        }
      #endif
    }
  }
#endif
