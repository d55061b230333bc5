import DexCloud
import DexModel
import Foundation

/// A ``/DexCloud/DexVisionServicing`` that plays a script instead of calling a backend: each
/// call takes the next ``Reply`` (a result, a failure or no answer at all, each after an
/// optional delay), and the last reply repeats once the script is used up.
///
/// It records every call (``requests``), so a test can check what the scanner sent: the JPEG,
/// the on-device category hint and the deadline. Delays and hangs end when the calling task is
/// cancelled, so a scanner's `DexScanner.Configuration.cloudTimeout` bounds them the
/// way it bounds a real backend. No network is used.
///
/// ```swift
/// let vision = ScriptedVisionService(.result(tabby))
/// let scanner = DexScanner(
///   classifier: FixedClassifier(category: .animal, label: "tabby"), visionService: vision)
/// let final = await scanner.run(try SamplePhoto.cat.data)
/// #expect(await vision.requests.first?.categoryHint == .animal)
/// ```
public actor ScriptedVisionService: DexVisionServicing {
  /// One call as the service received it.
  public struct Request: Sendable, Equatable {
    /// The encoded photo.
    public let imageData: Data
    /// The category hint, `nil` when the on-device pass found nothing.
    public let categoryHint: DexCategory?
    /// The deadline the caller gave, `nil` when it called without one.
    public let deadline: ContinuousClock.Instant?
    /// What was asked: an identification or a description.
    public var task: VisionRequest.Kind = .identify
    /// The question of a description, `nil` for an identification or none.
    public var question: String? = nil
    /// Whether the caller asked for a stream.
    public var streamed = false
  }

  /// The error ``Reply/failure(_:after:)`` throws by default: a stand-in for any failure of the
  /// cloud pass.
  public struct Failure: Error, Sendable, Equatable, LocalizedError {
    /// What the script says went wrong.
    public let message: String

    /// Creates a failure with `message`.
    public init(_ message: String = "The scripted vision service failed.") {
      self.message = message
    }

    /// The ``message``.
    public var errorDescription: String? { message }
  }

  private let script: [Reply]
  private var nextReply = 0
  /// Every call received so far, oldest first.
  public private(set) var requests: [Request] = []

  /// Creates a service that plays `replies` in order and then repeats the last one.
  ///
  /// - Parameter replies: the script; an empty one hangs on every call.
  public init(_ replies: [Reply]) {
    self.script = replies
  }

  /// Creates a service that gives `reply` to every call.
  public init(_ reply: Reply) {
    self.init([reply])
  }

  /// See ``/DexCloud/DexVisionServicing/identify(imageData:categoryHint:)``: plays the next
  /// reply.
  ///
  /// - Throws: the reply's error, or `CancellationError` when the task is cancelled while the
  ///   reply waits.
  public nonisolated func identify(
    imageData: Data, categoryHint: DexCategory?
  ) async throws -> ScanResult {
    try await play(Request(imageData: imageData, categoryHint: categoryHint, deadline: nil))
  }

  /// See ``/DexCloud/DexVisionServicing/identify(imageData:categoryHint:deadline:)``: records
  /// the deadline and plays the next reply (the caller stops waiting at the deadline).
  ///
  /// - Throws: the reply's error, or `CancellationError` when the task is cancelled while the
  ///   reply waits.
  public nonisolated func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult {
    try await play(Request(imageData: imageData, categoryHint: categoryHint, deadline: deadline))
  }

  /// See ``/DexCloud/DexVisionServicing/describe(imageData:question:deadline:)``: plays the
  /// next reply (a ``Reply/description(_:after:)`` or a ``Reply/streamed(_:after:)`` one,
  /// joined).
  ///
  /// - Throws: the reply's error, ``Failure`` for a reply that holds an entry, or
  ///   `CancellationError` when the task is cancelled while the reply waits.
  public nonisolated func describe(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) async throws -> VisionDescription {
    let reply = await next(
      Request(
        imageData: imageData, categoryHint: nil, deadline: deadline, task: .ask,
        question: question))
    var text = ""
    try await reply.playDescription { text += $0 }
    return VisionDescription(text: text)
  }

  /// See ``/DexCloud/DexVisionServicing/streamDescription(imageData:question:deadline:)``:
  /// plays the next reply's pieces, pauses and cut as they are scripted.
  public nonisolated func streamDescription(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<String, any Error> {
    let request = Request(
      imageData: imageData, categoryHint: nil, deadline: deadline, task: .ask,
      question: question, streamed: true)
    return AsyncThrowingStream.running { continuation in
      try await self.next(request).playDescription { continuation.yield($0) }
    }
  }

  /// See ``/DexCloud/DexVisionServicing/streamIdentification(imageData:categoryHint:deadline:)``:
  /// plays the next reply, a streamed one with its partial results as a backend's parse gives
  /// them, and a cut as `InterruptedScanError`.
  public nonisolated func streamIdentification(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<IdentificationUpdate, any Error> {
    let request = Request(
      imageData: imageData, categoryHint: categoryHint, deadline: deadline, streamed: true)
    return AsyncThrowingStream.running { continuation in
      try await self.next(request).playIdentification { continuation.yield($0) }
    }
  }

  private func next(_ request: Request) -> Reply {
    requests.append(request)
    let reply = script.isEmpty ? Reply.hang : script[min(nextReply, script.count - 1)]
    nextReply += 1
    return reply
  }

  private func play(_ request: Request) async throws -> ScanResult {
    try await next(request).play()
  }
}
