#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  @Suite(.offCooperativePool) struct ConcurrencyTests {
    @Test func manyConcurrentTasksProduceIdenticalOutput() async throws {
      let downscaler = ImageDownscaler()
      let jpeg = try resource("photo.jpg")
      let png = try resource("png-rgba8-interlaced.png")
      let expectedJPEG = try await downscaler.downscaledJPEG(from: jpeg, maximumDimension: 300)
      let expectedPNG = try await downscaler.downscaledJPEG(from: png, maximumDimension: 30)
      try await withThrowingTaskGroup(of: (Bool, Data).self) { group in
        for index in 0..<16 {
          group.addTask {
            let isJPEG = index % 2 == 0
            let output = try await downscaler.downscaledJPEG(
              from: isJPEG ? jpeg : png, maximumDimension: isJPEG ? 300 : 30)
            return (isJPEG, output)
          }
        }
        for try await (isJPEG, output) in group {
          #expect(output == (isJPEG ? expectedJPEG : expectedPNG))
        }
      }
    }

    @Test func asyncDecodeReturnsPixels() async throws {
      let image = try await ImageDownscaler().decodePixels(
        from: resource("photo.jpg"), target: .minimumShortSide(256))
      #expect(image.width == 480 && image.height == 270)
    }

    @Test func asyncVariantRespectsCancellation() async throws {
      let data = try resource("photo.jpg")
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await ImageDownscaler().downscale(data, options: DownscaleOptions())
      }
      await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func asyncErrorsAreImagingErrors() async {
      await #expect(throws: ImagingError.emptyInput) {
        try await ImageDownscaler().downscale(Data(), options: DownscaleOptions())
      }
    }
  }
#endif
