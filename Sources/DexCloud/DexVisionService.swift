import DexModel
import Foundation
import Logging

/// Identifies and describes photos through the signed `/vision` endpoint, whole or streamed.
///
/// An identification's reply is the typed ``VisionResponse/entry`` when the backend sends one
/// (`dex-proxy` does), else its ``VisionResponse/content`` parsed with
/// ``/DexModel/ScanResult/init(jsonString:)``. Streamed calls ask for Server-Sent Events and
/// read them as they arrive (see <doc:RequestSigning>); a backend that answers with one JSON
/// reply instead is read whole.
///
/// The prompt is the server's: the service sends the image, the task (`identify`) and the
/// on-device category hint (``VisionRequest/identify(image:categoryHint:stream:)``), and the backend
/// wraps them in its own identification prompt (`dex-proxy` uses
/// `DexCloudServer`'s `DexPrompt.identification(hint:)`), so a client holding the bootstrap key cannot
/// turn the endpoint into a general-purpose model.
///
/// Oversized images are refused before they are encoded or sent, with an error telling the
/// caller to downscale.
public struct DexVisionService: DexVisionServicing {
  /// The client that signs and sends the request.
  public let client: ApiClient
  private let logger: Logger

  /// Creates a service on `client`.
  ///
  /// - Parameters:
  ///   - client: the signed client.
  ///   - logger: where failures are logged (never with image bytes or secrets).
  public init(
    client: ApiClient,
    logger: Logger = Logger(label: "dexkit.cloud.vision")
  ) {
    self.client = client
    self.logger = logger
  }

  /// See ``DexVisionServicing/identify(imageData:categoryHint:)``: bounded by the client's
  /// ``RetryPolicy/maximumElapsed`` alone.
  ///
  /// - Throws: ``DexCloudError`` for transport, status and size failures;
  ///   `ScanResult.ParseError` when the model's reply holds no usable identification.
  public func identify(imageData: Data, categoryHint: DexCategory?) async throws -> ScanResult {
    try await request(imageData: imageData, categoryHint: categoryHint, deadline: nil)
  }

  /// See ``DexVisionServicing/identify(imageData:categoryHint:deadline:)``: `deadline` is the
  /// client's time budget for the call, retries and their waits included.
  ///
  /// - Throws: ``DexCloudError`` for transport, status and size failures (of kind
  ///   ``DexCloudError/Kind/timedOut`` when the deadline passed); `ScanResult.ParseError` when
  ///   the model's reply holds no usable identification.
  public func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult {
    try await request(imageData: imageData, categoryHint: categoryHint, deadline: deadline)
  }

  /// See ``DexVisionServicing/describe(imageData:question:deadline:)``: task `ask`, signed and
  /// retried like ``identify(imageData:categoryHint:deadline:)``.
  ///
  /// - Throws: ``DexCloudError`` for transport, status and size failures (the backend refuses
  ///   a question over its limit with 400 `prompt_too_long`).
  public func describe(
    imageData: Data, question: String? = nil, deadline: ContinuousClock.Instant? = nil
  ) async throws -> VisionDescription {
    let body = try encode(imageData) { .ask(image: $0, question: question) }
    do {
      let response = try await client.send(
        Endpoints.vision, body: body, as: VisionResponse.self, deadline: deadline)
      return VisionDescription(response)
    } catch {
      logFailure(error, task: "description")
      throw error
    }
  }

  /// See ``DexVisionServicing/streamDescription(imageData:question:deadline:)``: retried only
  /// until the reply's first byte; `deadline` (or the client's budget) bounds the whole
  /// stream.
  public func streamDescription(
    imageData: Data, question: String? = nil, deadline: ContinuousClock.Instant? = nil
  ) -> AsyncThrowingStream<String, any Error> {
    AsyncThrowingStream.running { continuation in
      let body = try encode(imageData) { .ask(image: $0, question: question, stream: true) }
      var reader = VisionStreamReader(
        task: .ask, redactor: client.redactor(session: nil, signature: nil))
      do {
        try await read(body, deadline: deadline, into: &reader) { update in
          if case .text(let piece) = update { continuation.yield(piece) }
        }
      } catch {
        logFailure(error, task: "description")
        throw error
      }
    }
  }

  /// See ``DexVisionServicing/streamIdentification(imageData:categoryHint:deadline:)``.
  public func streamIdentification(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant? = nil
  ) -> AsyncThrowingStream<IdentificationUpdate, any Error> {
    AsyncThrowingStream.running { continuation in
      let body = try encode(imageData) {
        .identify(image: $0, categoryHint: categoryHint, stream: true)
      }
      var reader = VisionStreamReader(
        task: .identify, redactor: client.redactor(session: nil, signature: nil))
      do {
        try await read(body, deadline: deadline, into: &reader) { update in
          if case .identification(let step) = update { continuation.yield(step) }
        }
      } catch {
        logFailure(error, task: "identification")
        throw error
      }
    }
  }

  /// Sends `body` for a streamed reply and feeds what arrives to `reader`, handing each update
  /// to `yield`. Bytes that arrived before a failure (the body's end before its `done` event
  /// included) turn it into the reader's interruption; a cancelled task ends with
  /// ``DexCloudError/Kind/cancelled``, even where the body simply stops.
  private func read(
    _ body: Data, deadline: ContinuousClock.Instant?, into reader: inout VisionStreamReader,
    yield: (VisionStreamReader.Update) -> Void
  ) async throws {
    let response = try await client.stream(Endpoints.vision, body: body, deadline: deadline)
    reader.expectsEvents =
      response.value(forHeader: "content-type")?.lowercased().hasPrefix("text/event-stream")
      ?? false
    do {
      for try await chunk in response.body {
        try Task.checkCancellation()
        try reader.consume(chunk, yield)
        if reader.isFinished { return }
      }
      // A cancelled iteration ends without throwing: the body did not end, its reader left.
      try Task.checkCancellation()
      for update in try reader.finish() { yield(update) }
    } catch {
      throw reader.interrupted(by: error)
    }
  }

  /// The JSON body for `imageData`, refused before the encoded copy is made when too large.
  private func encode(
    _ imageData: Data, _ make: (String) -> VisionRequest
  ) throws -> Data {
    let limit = client.configuration.maximumRequestBodyBytes
    // Base64 grows the image by 4/3; refuse before allocating the encoded copy.
    let encodedSize = (imageData.count + 2) / 3 * 4
    guard encodedSize <= limit else {
      logger.notice(
        "Image too large for the vision endpoint",
        metadata: ["bytes": "\(imageData.count)", "limit": "\(limit)"])
      throw DexCloudError.payloadTooLarge(size: encodedSize, limit: limit)
    }
    do {
      return try JSONEncoder().encode(make(imageData.base64EncodedString()))
    } catch {
      throw DexCloudError(kind: .invalidConfiguration, message: "Cannot encode the request.")
    }
  }

  /// Logs a failed request at error level; a cancelled one is the caller's choice, not a
  /// failure, and is not logged.
  private func logFailure(_ error: any Error, task: String) {
    guard
      let error = (error as? DexCloudError)
        ?? ((error as? InterruptedScanError)?.reason as? DexCloudError),
      error.kind != .cancelled
    else { return }
    logger.error(
      "Cloud \(task) request failed",
      metadata: ["kind": "\(error.kind.rawValue)", "status": "\(error.statusCode ?? 0)"])
  }

  /// Encodes, sends and parses one identification, within `deadline` when there is one.
  private func request(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant?
  ) async throws -> ScanResult {
    let body = try encode(imageData) { .identify(image: $0, categoryHint: categoryHint) }
    do {
      let response = try await client.send(
        Endpoints.vision, body: body, as: VisionResponse.self, deadline: deadline)
      return try VisionStreamReader.result(of: response)
    } catch let error as DexCloudError {
      logger.error(
        "Cloud identification request failed",
        metadata: ["kind": "\(error.kind.rawValue)", "status": "\(error.statusCode ?? 0)"])
      throw error
    }
  }
}
