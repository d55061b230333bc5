#if os(Linux) && SystemImageCodecs
  import Foundation
  import Logging

  /// An ``ImageDownscaling`` and ``ImageDecoding`` conformance that decodes in a small pool of
  /// worker processes, so that a bug a hostile photo reaches in a decoder (libjpeg-turbo,
  /// libpng, libheif with libde265 and dav1d, libwebp) costs one worker, not the host.
  ///
  /// Each worker is `dex-decode-worker`, an executable product of this package that a host
  /// ships beside its own binary. It is started with posix_spawn + exec (never a fork of the
  /// host), with descriptor 0 its end of a socket pair, 1 and 2 `/dev/null`, no other
  /// descriptor, none of the host's environment (only the settings it needs: the Swift
  /// backtracer off, two malloc arenas, the host's `LD_LIBRARY_PATH`), and these limits set by
  /// the host before the first
  /// request and again by the worker: an address-space limit (``addressSpaceLimit``, RLIMIT_AS),
  /// a CPU-time limit (``cpuTimeLimit`` per request, RLIMIT_CPU), RLIMIT_NOFILE 3 (it cannot
  /// open a file, a socket or a pipe), RLIMIT_FSIZE 0, no core dump, not dumpable, no new
  /// privileges. The host enforces a wall-clock deadline (``timeout``) and kills a worker that
  /// misses it; a cancelled task kills its worker too. A worker that crashes, hangs or is killed
  /// ends the call with ``ImagingError/isolatedDecodingFailed(_:)``, and the next call starts a
  /// fresh one.
  ///
  /// Requests are bounded before they are sent (``DecodingLimits/maximumByteCount``), and replies
  /// are checked against the request's limits and target before this process allocates for
  /// them. The photo goes to the worker and the pixels come back over the socket: the reply is
  /// the downscaled image, not the photo, so the copy is small next to the decode (see the
  /// DocC article's figures).
  ///
  /// Before it reads a request, a worker confines itself with a deny-by-default seccomp filter:
  /// it may use its socket, anonymous memory, its own threads, futexes and clocks; opening
  /// anything fails, and any other system call (`kill` of another process, `unlink`, `execve`)
  /// ends it. Not enforced: the worker runs as the host's user, in the host's namespaces. Linux
  /// only; hosts that do not opt in keep ``ImageDownscaler``.
  ///
  /// A value type: copies share one pool of workers, which are ended when the last copy goes.
  public struct IsolatedImageDecoder: ImageDownscaling, ImageDecoding {
    /// The worker executable's file name, looked for beside the host's executable.
    public static let workerExecutableName = "dex-decode-worker"

    /// The worker executable in use, or `nil` when none was found: then every call ends with
    /// ``IsolatedDecodingFailure/workerUnavailable(reason:)``.
    public let workerExecutable: String?
    /// How long one call may take, waiting for a worker included, before its worker is killed.
    public let timeout: Duration
    /// The CPU time one decode may use in its worker (whole seconds, at least 1).
    public let cpuTimeLimit: Duration
    /// Each worker's address-space limit in bytes.
    public let addressSpaceLimit: Int
    /// The most workers that run at once; further calls wait for one within their ``timeout``,
    /// served in the order they came.
    public var maximumWorkers: Int { pool.maximumWorkers }
    /// Receives a warning for each failed worker (never pixels or bytes of the photo).
    public var logger: Logger
    let pool: DecodeWorkerPool

    /// The address-space limit that fits `limits`: 1 GiB for the worker's code, libraries,
    /// threads and heap, plus twice the largest input and twice the largest decode buffer.
    public static func addressSpaceLimit(for limits: DecodingLimits) -> Int {
      let (buffers, overflow) = (2 &* limits.maximumByteCount).addingReportingOverflow(
        2 &* limits.maximumMemoryByteCount)
      return overflow ? Int.max : (1 << 30) + buffers
    }

    /// Creates a decoder whose workers run `workerExecutable`, or, when `nil`,
    /// ``workerExecutableName`` beside this process's executable.
    ///
    /// - Parameters:
    ///   - workerExecutable: the path of `dex-decode-worker`; `nil` looks beside this process's
    ///     executable.
    ///   - maximumWorkers: at least 1; by default the number of active processors.
    ///   - timeout: the wall-clock limit of one call (default 30 s).
    ///   - cpuTimeLimit: the CPU time one decode may use (default 20 s).
    ///   - limits: the limits the workers' address space is sized for
    ///     (``addressSpaceLimit(for:)``); requests still carry their own ``DecodingLimits``.
    ///   - logger: where worker failures and restarts are logged.
    public init(
      workerExecutable: String? = nil,
      maximumWorkers: Int = ProcessInfo.processInfo.activeProcessorCount,
      timeout: Duration = .seconds(30), cpuTimeLimit: Duration = .seconds(20),
      limits: DecodingLimits = .default,
      logger: Logger = Logger(label: "dexkit.imaging.decoder")
    ) {
      self.init(
        workerExecutable: workerExecutable, maximumWorkers: maximumWorkers, timeout: timeout,
        cpuTimeLimit: cpuTimeLimit, addressSpaceLimit: Self.addressSpaceLimit(for: limits),
        allowsTestHooks: false, logger: logger)
    }

    /// Every setting, test hooks included (this package's tests only).
    package init(
      workerExecutable: String?, maximumWorkers: Int, timeout: Duration, cpuTimeLimit: Duration,
      addressSpaceLimit: Int, allowsTestHooks: Bool, logger: Logger
    ) {
      let executable = workerExecutable ?? Self.besideMainExecutable(Self.workerExecutableName)
      self.workerExecutable = executable
      self.timeout = max(timeout, .zero)
      self.cpuTimeLimit = max(cpuTimeLimit, .seconds(1))
      self.addressSpaceLimit = max(addressSpaceLimit, 64 << 20)
      self.logger = logger
      let requestsPerWorker = 64
      pool = DecodeWorkerPool(
        launch: DecodeWorker.Launch(
          executable: executable ?? "", addressSpaceBytes: self.addressSpaceLimit,
          cpuSecondsPerLife: Self.seconds(self.cpuTimeLimit) * requestsPerWorker,
          allowsTestHooks: allowsTestHooks),
        maximumWorkers: maximumWorkers, requestsPerWorker: requestsPerWorker)
    }

    /// `name` in the directory of this process's executable, when it is an executable file.
    package static func besideMainExecutable(_ name: String) -> String? {
      guard let main = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
      else { return nil }
      let candidate = URL(fileURLWithPath: main).deletingLastPathComponent()
        .appendingPathComponent(name).path
      return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    static func seconds(_ duration: Duration) -> Int {
      let (seconds, attoseconds) = duration.components
      return Int(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// Decodes, orients, downscales and JPEG-encodes `imageData` in a worker; see
    /// ``ImageDownscaling``. Blocks the calling thread until the worker answers.
    public func downscale(
      _ imageData: Data, options: DownscaleOptions
    ) throws(ImagingError) -> DownscaledImage {
      let target = try Self.target(of: options)
      let (reply, parts) = try perform(
        .downscale, imageData, target: target, decoding: options.decoding, output: options)
      return try downscaledImage(reply, parts, options: options)
    }

    /// The synchronous `downscale(_:options:)` for async callers: waits for the worker without
    /// holding a thread of Swift's cooperative pool, so that a worker that hangs until the
    /// ``timeout`` stalls only its own call; cancelling the task ends the worker.
    ///
    /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled (then its
    ///   worker, if it had one, is ended).
    public func downscale(
      _ imageData: Data, options: DownscaleOptions
    ) async throws -> DownscaledImage {
      try Task.checkCancellation()
      let target = try Self.target(of: options)
      let (reply, parts) = try await Self.cancellationAsError {
        () async throws(ImagingError) in
        try await perform(
          .downscale, imageData, target: target, decoding: options.decoding, output: options)
      }
      return try downscaledImage(reply, parts, options: options)
    }

    /// Decodes `imageData` to upright RGB8 at `target` in a worker; see ``ImageDecoding``.
    /// Blocks the calling thread until the worker answers.
    public func decodePixels(
      from imageData: Data, target: PixelTarget, options: DecodingOptions
    ) throws(ImagingError) -> RGBImage {
      let (reply, parts) = try perform(
        .decodePixels, imageData, target: target, decoding: options, output: nil)
      return try pixels(reply, parts)
    }

    /// The synchronous `decodePixels(from:target:options:)` for async callers: waits for the
    /// worker without holding a thread of Swift's cooperative pool; cancelling the task ends the
    /// worker.
    ///
    /// - Throws: ``ImagingError``, or `CancellationError` when the task is cancelled (then its
    ///   worker, if it had one, is ended).
    public func decodePixels(
      from imageData: Data, target: PixelTarget, options: DecodingOptions = DecodingOptions()
    ) async throws -> RGBImage {
      try Task.checkCancellation()
      let (reply, parts) = try await Self.cancellationAsError {
        () async throws(ImagingError) in
        try await perform(
          .decodePixels, imageData, target: target, decoding: options, output: nil)
      }
      return try pixels(reply, parts)
    }

    /// `body`'s outcome, with a cancelled wait thrown as `CancellationError`, the way async
    /// callers (DexScanner, PixScan) tell a cancelled call from a photo that cannot be read.
    private static func cancellationAsError<T>(
      _ body: () async throws(ImagingError) -> T
    ) async throws -> T {
      do {
        return try await body()
      } catch .isolatedDecodingFailed(.cancelled) {
        throw CancellationError()
      }
    }

    /// A test hook's request (the worker must have been started with them allowed).
    package func performTestHook(
      _ mode: DecodeWorkerMessage.Request.Mode
    ) throws(ImagingError) {
      _ = try perform(
        mode, Data([0]), target: .original, decoding: DecodingOptions(), output: nil)
    }

    /// A test hook's request, awaited.
    package func performTestHook(
      _ mode: DecodeWorkerMessage.Request.Mode
    ) async throws(ImagingError) {
      _ = try await perform(
        mode, Data([0]), target: .original, decoding: DecodingOptions(), output: nil)
    }

    private static func target(of options: DownscaleOptions) throws(ImagingError) -> PixelTarget {
      guard options.maximumDimension > 0 else {
        throw .invalidArgument("maximumDimension must be positive, got \(options.maximumDimension)")
      }
      return .fitting(maximumDimension: options.maximumDimension)
    }

    private func downscaledImage(
      _ reply: DecodeWorkerMessage.Reply, _ parts: ReplyPayloads, options: DownscaleOptions
    ) throws(ImagingError) -> DownscaledImage {
      guard let format = reply.sourceFormat else {
        throw malformed("the reply names no source format")
      }
      let pixels = try pixels(reply, parts)
      return DownscaledImage(
        jpegData: Data(parts.jpeg), pixelWidth: reply.width, pixelHeight: reply.height,
        sourceFormat: format, sourcePixelWidth: reply.sourceWidth,
        sourcePixelHeight: reply.sourceHeight, appliedOrientation: reply.orientation,
        isPartial: reply.isPartial, pixels: pixels,
        thumbnailJPEG: options.maximumThumbnailDimension == nil ? nil : Data(parts.thumbnail),
        exifDate: reply.exifDate)
    }

    private func pixels(
      _ reply: DecodeWorkerMessage.Reply, _ parts: ReplyPayloads
    ) throws(ImagingError) -> RGBImage {
      guard let image = RGBImage(width: reply.width, height: reply.height, pixels: parts.pixels)
      else { throw malformed("the image does not match its size") }
      return image
    }

    private func malformed(_ reason: String) -> ImagingError {
      .isolatedDecodingFailed(.malformedReply(reason: reason))
    }
  }
#endif
