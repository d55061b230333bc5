#if os(Linux) && SystemImageCodecs
  import DexTestSupport
  import Foundation
  import Glibc
  import Testing

  @testable import DexImaging

  extension IsolatedImageDecoderTests {
    /// An async request that never answers, from a task on the cooperative pool.
    static func hangDetached(
      _ decoder: IsolatedImageDecoder
    ) -> Task<Result<Void, ImagingError>, Never> {
      Task.detached {
        do throws(ImagingError) {
          return .success(try await decoder.performTestHook(.testHang))
        } catch {
          return .failure(error)
        }
      }
    }

    /// Expects a queued downscale to end as cancelled, with `CancellationError`.
    static func expectCancelled(_ task: Task<DownscaledImage, any Error>) async {
      let outcome = await task.result
      #expect(throws: CancellationError.self) { try outcome.get() }
    }

    /// Async callers wait for their workers without holding a thread of Swift's cooperative
    /// pool (one thread per core): with more hung workers than the pool has threads, and more
    /// callers queued for a worker through `any ImageDownscaling` (as DexScanner and PixScan
    /// call it), a task on the pool still runs at once, and cancelling the callers ends their
    /// workers. Waiting on the pool's threads, the decodes held every thread until their
    /// deadline, and every other task of the host (an HTTP server's handlers included) waited
    /// with them.
    @Test func hungWorkersHoldNoThreadOfTheCooperativePool() async throws {
      let cores = ProcessInfo.processInfo.activeProcessorCount
      let decoder = Self.decoder(timeout: .seconds(20), maximumWorkers: cores + 1)
      // Detached: they run on the cooperative pool (the suite's own tasks do not).
      let hung = (0..<(cores + 1)).map { _ in Self.hangDetached(decoder) }
      let patience = ContinuousClock.now + .seconds(60)
      while decoder.pool.busyProcessIDs.count < cores + 1, ContinuousClock.now < patience {
        try await Task.sleep(for: .milliseconds(20))
      }
      let workers = decoder.pool.busyProcessIDs
      try #require(workers.count == cores + 1, "only \(workers.count) workers took a request")
      // Queued once every worker is busy, so that none of them can take a worker.
      let imaging: any ImageDownscaling = decoder
      let photo = try resource("photo.jpg")
      let queued = (0..<2).map { _ in
        Task.detached {
          try await imaging.downscale(photo, options: DownscaleOptions(maximumDimension: 64))
        }
      }
      try await Task.sleep(for: .milliseconds(200))

      let asked = ContinuousClock.now
      let answered = await Task.detached { ContinuousClock.now }.value
      #expect(answered - asked < .seconds(5), "a task on the pool waited \(answered - asked)")

      let cancelled = ContinuousClock.now
      for caller in hung { caller.cancel() }
      for caller in queued { caller.cancel() }
      for caller in hung {
        #expect(Self.failure(await caller.value) == .cancelled)
      }
      for caller in queued { await Self.expectCancelled(caller) }
      #expect(ContinuousClock.now - cancelled < .seconds(10))
      for worker in workers {
        #expect(kill(worker, 0) != 0, "worker \(worker) still runs")  // ended and collected
      }
      #expect(decoder.pool.busyProcessIDs.isEmpty)
      let image = try await decoder.decodePixels(
        from: photo, target: .fitting(maximumDimension: 256))
      #expect(max(image.width, image.height) == 256)
    }

    /// A caller queued for a worker leaves the queue as soon as it is cancelled, without
    /// starting one.
    @Test func aQueuedAsyncCallerEndsWhenCancelled() async throws {
      let decoder = Self.decoder(timeout: .seconds(20), maximumWorkers: 1)
      let held = Self.hangDetached(decoder)
      let patience = ContinuousClock.now + .seconds(60)
      while decoder.pool.busyProcessIDs.isEmpty, ContinuousClock.now < patience {
        try await Task.sleep(for: .milliseconds(20))
      }
      try #require(decoder.pool.busyProcessIDs.count == 1)
      let photo = try resource("photo.jpg")
      let queued = Task.detached {
        try await decoder.downscale(photo, options: DownscaleOptions(maximumDimension: 64))
      }
      try await Task.sleep(for: .milliseconds(300))
      let cancelled = ContinuousClock.now
      queued.cancel()
      await Self.expectCancelled(queued)
      #expect(ContinuousClock.now - cancelled < .seconds(2))
      #expect(decoder.pool.startedCount == 1)
      held.cancel()
      #expect(Self.failure(await held.value) == .cancelled)
    }
  }
#endif
