// dex-decode-worker: the process behind DexImaging's IsolatedImageDecoder (Linux).
//
// Started by the decoder with posix_spawn + exec; descriptor 0 is its end of a socket pair.
// It confines itself before reading anything (see dex_worker_confine: no descriptor beyond
// 0-2, RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE 0, not dumpable; then a deny-by-default seccomp
// filter, see dex_worker_filter_system_calls), then answers requests one at a time until the
// socket closes. A request's bytes are only ever handed to ImageDownscaler.
#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import CDexWorkerSandbox
  import DexImaging
  import Foundation
  import Glibc

  /// The value after `flag` on the command line, as a positive integer.
  func argument(_ flag: String) -> Int? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count,
      let value = Int(arguments[index + 1]), value > 0
    else { return nil }
    return value
  }

  guard let addressSpace = argument("--address-space"), let cpuSeconds = argument("--cpu-seconds")
  else {
    try? FileHandle.standardError.write(
      contentsOf:
        Data("usage: dex-decode-worker --address-space BYTES --cpu-seconds SECONDS\n".utf8))
    exit(64)
  }
  let allowsTestHooks = CommandLine.arguments.contains("--test-hooks")
  guard dex_worker_confine(UInt64(addressSpace), UInt64(cpuSeconds)) == 0 else { exit(71) }

  let channel = DecodeWorkerChannel(descriptor: 0)
  let decoder = ImageDownscaler()
  // The last step of set-up, before the first request's bytes are read: from here on opening
  // a file or a socket fails with EPERM and any other system call outside the worker's
  // allow-list ends it with SIGSYS (see CDexWorkerSandbox). A kernel that refuses the filter
  // gets no worker at all (exit 71, the host's workerExited), never an unfiltered one.
  guard dex_worker_filter_system_calls() == 0 else { exit(71) }

  /// Answers one request; returns false when the socket is gone.
  func serve() -> Bool {
    let request: DecodeWorkerMessage.Request
    let data: [UInt8]
    do {
      request = try channel.receive(DecodeWorkerMessage.Request.self)
      guard request.byteCount > 0, request.byteCount <= request.limits.maximumByteCount else {
        return false
      }
      data = try channel.receivePayload(count: request.byteCount)
    } catch {
      return false
    }
    _ = dex_worker_set_cpu_budget(UInt64(max(1, request.cpuSeconds)))
    var reply = DecodeWorkerMessage.Reply()
    var payloads: [Data] = []
    do throws(ImagingError) {
      guard let target = request.pixelTarget else { throw .invalidArgument("unknown target") }
      switch request.mode {
      case .decodePixels:
        let image = try decoder.decodePixels(
          from: Data(data), target: target, options: request.decodingOptions)
        (reply.width, reply.height) = (image.width, image.height)
        (reply.sourceWidth, reply.sourceHeight) = (image.width, image.height)
        reply.pixelByteCount = image.pixels.count
        payloads = [Data(image.pixels)]
      case .downscale:
        guard let options = request.downscaleOptions else {
          throw .invalidArgument("a downscale without its options")
        }
        let result = try decoder.downscale(Data(data), options: options)
        guard let pixels = result.pixels else { throw .outOfMemory }
        (reply.width, reply.height) = (result.pixelWidth, result.pixelHeight)
        (reply.sourceWidth, reply.sourceHeight) = (
          result.sourcePixelWidth, result.sourcePixelHeight
        )
        reply.sourceFormat = result.sourceFormat
        reply.orientation = result.appliedOrientation
        reply.exifDate = result.exifDate
        reply.isPartial = result.isPartial
        reply.pixelByteCount = pixels.pixels.count
        reply.jpegByteCount = result.jpegData.count
        reply.thumbnailByteCount = result.thumbnailJPEG?.count ?? 0
        payloads = [Data(pixels.pixels), result.jpegData, result.thumbnailJPEG ?? Data()]
      case .testConfinement:
        guard allowsTestHooks else { throw .invalidArgument("test hooks are off") }
        throw .invalidArgument(confinementReport())
      case .testForbiddenSystemCall:
        guard allowsTestHooks else { throw .invalidArgument("test hooks are off") }
        // exec: under the filter this ends the worker with SIGSYS; without it, it returns.
        let result = execve("/nonexistent/dex-decode-worker-test", [nil], [nil])
        throw .invalidArgument("execve() returned \(result), errno \(errno): not filtered")
      case .testHang, .testAllocate, .testCrash, .testReplyTwice:
        guard allowsTestHooks else { throw .invalidArgument("test hooks are off") }
        runTestHook(request.mode)
        (reply.width, reply.height, reply.sourceWidth, reply.sourceHeight) = (1, 1, 1, 1)
        reply.pixelByteCount = 3
        payloads = [Data([0, 0, 0])]
      }
    } catch {
      reply = DecodeWorkerMessage.Reply()
      reply.failure = DecodeWorkerMessage.Reply.Failure(error)
      payloads = []
    }
    reply.requestID = request.requestID
    do {
      try channel.send(reply, payloads: payloads)
      if request.mode == .testReplyTwice, allowsTestHooks {
        try channel.send(reply, payloads: payloads)
      }
      return true
    } catch {
      return false
    }
  }

  /// What the tests make a worker do: what a decoder bug would (hang, allocate without bound,
  /// crash). Reached only with `--test-hooks`.
  func runTestHook(_ mode: DecodeWorkerMessage.Request.Mode) {
    switch mode {
    case .testHang:
      while true { sleep(3600) }
    case .testAllocate:
      // 4 GiB, every page touched: refused by the address-space limit, which ends the worker.
      let bytes = [UInt8](repeating: 1, count: 4 << 30)
      _ = bytes.withUnsafeBufferPointer { $0.last }
    case .testCrash:
      raise(SIGSEGV)
    default:
      break
    }
  }

  /// What a decoder bug that tried to reach out would get: each call's result or errno name.
  func confinementReport() -> String {
    func outcome(_ result: Int32) -> String {
      if result >= 0 {
        close(result)
        return "opened"
      }
      return errnoName(errno)
    }
    func errnoName(_ code: Int32) -> String {
      switch code {
      case EMFILE: "EMFILE"
      case EPERM: "EPERM"
      default: "errno \(code)"
      }
    }
    var ends: [Int32] = [0, 0]
    let piped = pipe(&ends) == 0 ? "opened" : errnoName(errno)
    return [
      "file=\(outcome(open("/etc/hostname", O_RDONLY)))",
      "socket=\(outcome(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)))",
      "pipe=\(piped)", "dumpable=\(dex_worker_dumpable())",
    ].joined(separator: " ")
  }

  while serve() {}
  exit(0)
#else
  import Foundation

  // Built without the SystemImageCodecs trait, or not on Linux: there is no decoder to run.
  try? FileHandle.standardError.write(
    contentsOf:
      Data(
        ("dex-decode-worker: built without the system image codecs (it needs Linux and the "
          + "package's SystemImageCodecs trait); it decodes nothing\n").utf8))
  exit(69)  // EX_UNAVAILABLE
#endif
