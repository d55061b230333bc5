import DexModel
import Foundation
import Logging

/// Identifies a photo through the signed `/vision` endpoint and parses the reply with
/// ``/DexModel/ScanResult/init(jsonString:)``.
///
/// The prompt is the server's: the service sends the image, the task (`identify`) and the
/// on-device category hint (``VisionRequest/identify(image:categoryHint:)``), and the backend
/// wraps them in its own identification prompt (`dex-proxy` uses
/// ``/DexModel/DexPrompt/identification(hint:)``), so a client holding the bootstrap key cannot
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

  /// Encodes, sends and parses one identification, within `deadline` when there is one.
  private func request(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant?
  ) async throws -> ScanResult {
    let limit = client.configuration.maximumRequestBodyBytes
    // Base64 grows the image by 4/3; refuse before allocating the encoded copy.
    let encodedSize = (imageData.count + 2) / 3 * 4
    guard encodedSize <= limit else {
      logger.notice(
        "Image too large for identification",
        metadata: ["bytes": "\(imageData.count)", "limit": "\(limit)"])
      throw DexCloudError.payloadTooLarge(size: encodedSize, limit: limit)
    }
    let request = VisionRequest.identify(
      image: imageData.base64EncodedString(), categoryHint: categoryHint)
    let body: Data
    do {
      body = try JSONEncoder().encode(request)
    } catch {
      throw DexCloudError(kind: .invalidConfiguration, message: "Cannot encode the request.")
    }
    do {
      let response = try await client.send(
        Endpoints.vision, body: body, as: VisionResponse.self, deadline: deadline)
      return try ScanResult(jsonString: response.content)
    } catch let error as DexCloudError {
      logger.error(
        "Cloud identification request failed",
        metadata: ["kind": "\(error.kind.rawValue)", "status": "\(error.statusCode ?? 0)"])
      throw error
    }
  }
}
