import Foundation

/// Asks the signed `/vision` endpoint to describe an image: the plain AI Vision feature.
public struct VisionService: Sendable {
  /// The client that signs and sends the request.
  public let client: ApiClient

  /// Creates a service on `client`.
  public init(client: ApiClient) {
    self.client = client
  }

  /// Describes `image` (base64 JPEG or PNG), focused by `prompt` when given.
  ///
  /// - Throws: ``DexCloudError``, including ``DexCloudError/Kind/payloadTooLarge`` when the
  ///   encoded request is over the configured limit.
  public func analyzeImage(image: String, prompt: String? = nil) async throws -> VisionResponse {
    let body: Data
    do {
      body = try JSONEncoder().encode(VisionRequest(image: image, prompt: prompt))
    } catch {
      throw DexCloudError(kind: .invalidConfiguration, message: "Cannot encode the request.")
    }
    let result = await client.sendRequest(
      endpoint: Endpoints.vision, body: body, responseModel: VisionResponse.self)
    switch result {
    case .success(let response): return response
    case .failure(let failure): throw failure
    }
  }
}
