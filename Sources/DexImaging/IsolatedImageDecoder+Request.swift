#if os(Linux) && SystemImageCodecs
  import Foundation

  extension IsolatedImageDecoder {
    /// What a worker sent back beyond its header.
    struct ReplyPayloads: Sendable {
      var pixels: [UInt8] = []
      var jpeg: [UInt8] = []
      var thumbnail: [UInt8] = []
    }

    /// What one request to a worker answers.
    typealias Answer = Result<(DecodeWorkerMessage.Reply, ReplyPayloads), ImagingError>

    /// One request to a worker: bounded before it is sent, its reply checked before anything
    /// is allocated for it. Blocks the calling thread until the worker answers.
    func perform(
      _ mode: DecodeWorkerMessage.Request.Mode, _ data: Data, target: PixelTarget,
      decoding: DecodingOptions, output: DownscaleOptions?
    ) throws(ImagingError) -> (DecodeWorkerMessage.Reply, ReplyPayloads) {
      let (request, deadline) = try prepare(
        mode, data, target: target, decoding: decoding, output: output)
      let outcome: Answer
      do throws(IsolatedDecodingFailure) {
        outcome = try pool.withWorker(until: deadline, timeout: timeout) {
          (worker) throws(DecodeWorkerChannel.Failure) in
          try exchange(
            request, data, with: worker, until: deadline, target: target,
            limits: decoding.limits, isCancelled: { Task.isCancelled })
        }
      } catch {
        throw failed(error)
      }
      return try outcome.get()
    }

    /// ``perform(_:_:target:decoding:output:)`` for async callers: holds no thread of Swift's
    /// cooperative pool while it waits for a worker or for its answer (see
    /// the pool's async `withWorker`).
    func perform(
      _ mode: DecodeWorkerMessage.Request.Mode, _ data: Data, target: PixelTarget,
      decoding: DecodingOptions, output: DownscaleOptions?
    ) async throws(ImagingError) -> (DecodeWorkerMessage.Reply, ReplyPayloads) {
      let (request, deadline) = try prepare(
        mode, data, target: target, decoding: decoding, output: output)
      let outcome: Answer
      do throws(IsolatedDecodingFailure) {
        outcome = try await pool.withWorker(until: deadline, timeout: timeout) {
          [self] (worker, isCancelled) throws(DecodeWorkerChannel.Failure) in
          try exchange(
            request, data, with: worker, until: deadline, target: target,
            limits: decoding.limits, isCancelled: isCancelled)
        }
      } catch {
        throw failed(error)
      }
      return try outcome.get()
    }

    /// The request for `data`, checked against its limits, and the call's deadline.
    private func prepare(
      _ mode: DecodeWorkerMessage.Request.Mode, _ data: Data, target: PixelTarget,
      decoding: DecodingOptions, output: DownscaleOptions?
    ) throws(ImagingError) -> (DecodeWorkerMessage.Request, ContinuousClock.Instant) {
      try checkRequest(data, target: target, limits: decoding.limits)
      guard workerExecutable != nil else {
        throw .isolatedDecodingFailed(
          .workerUnavailable(
            reason:
              "\(Self.workerExecutableName) is not beside this executable and no path was given"
          ))
      }
      let request = DecodeWorkerMessage.Request(
        mode: mode, target: target, options: decoding, output: output,
        cpuSeconds: Self.seconds(cpuTimeLimit), byteCount: data.count)
      return (request, ContinuousClock.now + timeout)
    }

    /// Sends `request` and `data` to `worker` and reads its checked answer.
    private func exchange(
      _ request: DecodeWorkerMessage.Request, _ data: Data, with worker: DecodeWorker,
      until deadline: ContinuousClock.Instant, target: PixelTarget, limits: DecodingLimits,
      isCancelled: @escaping @Sendable () -> Bool
    ) throws(DecodeWorkerChannel.Failure) -> (Answer, keep: Bool) {
      // Which worker holds which request: what a log reader needs to match a failure to a
      // process (and what PixScan's tests use to stop that worker mid-decode).
      logger.debug(
        "Isolated decode handed to a worker", metadata: ["pid": "\(worker.processID)"])
      var channel = DecodeWorkerChannel(descriptor: worker.descriptor, deadline: deadline)
      channel.isCancelled = isCancelled
      var request = request
      request.requestID = UInt64.random(in: 1...UInt64.max)
      try channel.send(request, payloads: [data])
      let reply = try channel.receive(DecodeWorkerMessage.Reply.self)
      guard reply.requestID == request.requestID else {
        throw .malformed("the reply answers another request")
      }
      if let failure = reply.failure {
        guard let error = failure.error else {
          throw .malformed("an error the worker cannot send (\(failure.kind))")
        }
        return (Answer.failure(error), keep: true)
      }
      try Self.validate(reply, for: request, target: target, limits: limits)
      var parts = ReplyPayloads()
      parts.pixels = try channel.receivePayload(count: reply.pixelByteCount)
      parts.jpeg = try channel.receivePayload(count: reply.jpegByteCount)
      parts.thumbnail = try channel.receivePayload(count: reply.thumbnailByteCount)
      return (Answer.success((reply, parts)), keep: true)
    }

    /// Logs a failed call (never the photo's bytes) and wraps its failure.
    private func failed(_ failure: IsolatedDecodingFailure) -> ImagingError {
      logger.warning(
        "Isolated decode failed",
        metadata: ["failure": "\(failure)", "worker": "\(workerExecutable ?? "")"])
      return .isolatedDecodingFailed(failure)
    }

    /// Refuses a reply whose sizes the request does not allow, before anything is read for it.
    static func validate(
      _ reply: DecodeWorkerMessage.Reply, for request: DecodeWorkerMessage.Request,
      target: PixelTarget, limits: DecodingLimits
    ) throws(DecodeWorkerChannel.Failure) {
      let side = limits.effectiveMaximumDimension
      func check(_ width: Int, _ height: Int, _ what: String) throws(DecodeWorkerChannel.Failure) {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard (1...side).contains(width), (1...side).contains(height), !overflow,
          area <= limits.maximumPixelCount
        else { throw .malformed("\(what) of \(width) x \(height) is beyond the limits") }
      }
      try check(reply.width, reply.height, "an image")
      try check(reply.sourceWidth, reply.sourceHeight, "a source")
      if case .fitting(let maximumDimension) = target,
        max(reply.width, reply.height) > maximumDimension
      {
        throw .malformed("an image of \(reply.width) x \(reply.height) for \(maximumDimension)")
      }
      let pixelBytes = reply.width * reply.height * 3
      guard reply.pixelByteCount == pixelBytes else {
        throw .malformed("\(reply.pixelByteCount) pixel bytes for \(reply.width) x \(reply.height)")
      }
      // A JPEG of these pixels is never twice their size plus its headers.
      let jpegBound = 2 * pixelBytes + (1 << 16)
      let wantsJPEG = request.mode == .downscale
      let wantsThumbnail = request.output?.maximumThumbnailDimension != nil
      guard wantsJPEG ? (1...jpegBound).contains(reply.jpegByteCount) : reply.jpegByteCount == 0,
        wantsThumbnail
          ? (1...jpegBound).contains(reply.thumbnailByteCount) : reply.thumbnailByteCount == 0,
        !wantsJPEG || reply.sourceFormat != nil
      else { throw .malformed("JPEG byte counts the request does not allow") }
    }
  }
#endif
