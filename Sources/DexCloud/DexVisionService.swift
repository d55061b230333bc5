import Foundation
import Logging

/// Identifies a photo through the signed `/vision` endpoint, with ``/DexModel/DexPrompt`` as
/// the prompt and ``/DexModel/ScanResult/init(jsonString:)`` as the parser.
///
/// Oversized images are refused before they are encoded or sent, with an error telling the
/// caller to downscale.
public struct DexVisionService: DexVisionServicing {
  /// The client that signs and sends the request.
  public let client: ApiClient
  private let logger: Logger

  /// Creates a service on `client`.
  public init(client: ApiClient, logger: Logger = Logger(label: "dexkit.cloud.vision")) {
    self.client = client
    self.logger = logger
  }

  /// See ``DexVisionServicing/identify(imageData:categoryHint:)``.
  ///
  /// - Throws: ``DexCloudError`` for transport, status and size failures;
  ///   `ScanResult.ParseError` when the model's reply holds no usable identification.
  public func identify(imageData: Data, categoryHint: String?) async throws -> ScanResult {
    let limit = client.configuration.maximumRequestBodyBytes
    // Base64 grows the image by 4/3; refuse before allocating the encoded copy.
    let encodedSize = (imageData.count + 2) / 3 * 4
    guard encodedSize <= limit else {
      logger.notice(
        "Image too large for identification",
        metadata: ["bytes": "\(imageData.count)", "limit": "\(limit)"])
      throw DexCloudError.payloadTooLarge(size: encodedSize, limit: limit)
    }
    let request = VisionRequest(
      image: imageData.base64EncodedString(),
      prompt: DexPrompt.identification(categoryHint: categoryHint))
    let body: Data
    do {
      body = try JSONEncoder().encode(request)
    } catch {
      throw DexCloudError(kind: .invalidConfiguration, message: "Cannot encode the request.")
    }
    let result = await client.sendRequest(
      endpoint: Endpoints.vision, body: body, responseModel: VisionResponse.self)
    switch result {
    case .success(let response):
      return try ScanResult(jsonString: response.content)
    case .failure(let error):
      logger.error(
        "Cloud identification request failed",
        metadata: ["kind": "\(error.kind.rawValue)", "status": "\(error.statusCode ?? 0)"])
      throw error
    }
  }
}
