import DexCloud
import Foundation
import Logging

/// Forwards one identification request to an OpenAI-compatible `/chat/completions` endpoint.
///
/// The proxy's instructions (``ProxyPrompt``) go as the `system` message; the user's message
/// holds the question, if any, as a JSON string, and the image as a `data:` URL in an
/// `image_url` part; the reply's first message comes back as a
/// ``DexCloud/VisionResponse``. A refusal (`content: null`, `refusal: "…"`) is returned as the
/// message text, so the client's parser reports it as a refusal. HTTP goes through DexCloud's
/// `HTTPTransport` (``AsyncHTTPClientTransport`` by default), which enforces the timeout, reads
/// the reply with a size cap while it streams and honours cancellation.
public struct ChatCompletionsClient: Sendable {
  /// The endpoint, model and key.
  public let configuration: UpstreamConfiguration
  let transport: any HTTPTransport
  let logger: Logger

  /// Creates a client.
  public init(
    configuration: UpstreamConfiguration, transport: (any HTTPTransport)? = nil,
    logger: Logger = Logger(label: "dexkit.proxy.upstream")
  ) {
    self.configuration = configuration
    self.transport =
      transport
      ?? AsyncHTTPClientTransport(maximumResponseBytes: configuration.maximumResponseBytes)
    self.logger = logger
  }

  /// Sends `prompt` (the proxy's instructions, see ``ProxyPrompts``) and `image` (base64 JPEG
  /// or PNG) upstream and returns the model's message.
  public func complete(
    prompt: String, image: String
  ) async throws(UpstreamError) -> VisionResponse {
    try await complete(ProxyPrompt(instructions: prompt), image: image)
  }

  /// Sends `prompt` (instructions as the `system` message, the question as data in the user's)
  /// and `image` (base64 JPEG or PNG) upstream and returns the model's message.
  public func complete(
    _ prompt: ProxyPrompt, image: String
  ) async throws(UpstreamError) -> VisionResponse {
    let request = try request(prompt, image: image, stream: false)
    let response: TransportResponse
    do {
      response = try await transport.send(request, timeout: configuration.timeout)
    } catch {
      throw upstreamError(error)
    }
    try refuseUnlessSuccessful(response.statusCode)
    guard let decoded = try? JSONDecoder().decode(ChatCompletionResponse.self, from: response.body),
      let message = decoded.choices.first?.message,
      let content = message.content.flatMap({ $0.isEmpty ? nil : $0 }) ?? message.refusal
    else {
      logger.warning("Upstream reply unreadable", metadata: ["bytes": "\(response.body.count)"])
      throw .invalidResponse
    }
    return VisionResponse(role: message.role ?? "assistant", content: content)
  }

  /// Throws the error an upstream's non-2xx status means (429: ``UpstreamError/rateLimited``),
  /// logged with the status alone, so that whole and streamed replies refuse alike.
  func refuseUnlessSuccessful(_ statusCode: Int) throws(UpstreamError) {
    guard (200..<300).contains(statusCode) else {
      logger.warning("Upstream refused", metadata: ["status": "\(statusCode)"])
      throw statusCode == 429 ? .rateLimited : .status(statusCode)
    }
  }

  /// The signed-for-upstream request: `stream: true` asks for Server-Sent Events.
  func request(
    _ prompt: ProxyPrompt, image: String, stream: Bool
  ) throws(UpstreamError) -> TransportRequest {
    guard let url = configuration.chatCompletionsURL else { throw .unreachable }
    let body = try encode(prompt, image: image, stream: stream)
    var headers = [
      "content-type": "application/json",
      "accept": stream ? "text/event-stream" : "application/json",
    ]
    if let key = configuration.apiKey { headers["authorization"] = "Bearer \(key.value)" }
    return TransportRequest(method: "POST", url: url, headers: headers, body: body)
  }

  /// A transport failure as the proxy reports it (logged by kind only).
  func upstreamError(_ error: any Error) -> UpstreamError {
    if let error = error as? UpstreamError { return error }
    guard let error = error as? DexCloudError else { return .unreachable }
    logger.warning("Upstream call failed", metadata: ["kind": "\(error.kind.rawValue)"])
    switch error.kind {
    case .timedOut: return .timedOut
    case .payloadTooLarge: return .responseTooLarge
    case .cancelled: return .cancelled
    default: return .unreachable
    }
  }

  private func encode(
    _ prompt: ProxyPrompt, image: String, stream: Bool
  ) throws(UpstreamError) -> Data {
    let mime = image.hasPrefix("iVBORw0KGgo") ? "image/png" : "image/jpeg"
    var user: [ChatCompletionRequest.Part] = []
    if let question = prompt.question,
      let quoted = try? String(decoding: JSONEncoder().encode(question), as: UTF8.self)
    {
      user.append(.init(type: "text", text: "Question about the photo (JSON string): \(quoted)"))
    }
    user.append(.init(type: "image_url", imageURL: .init(url: "data:\(mime);base64,\(image)")))
    let payload = ChatCompletionRequest(
      model: configuration.model,
      messages: [
        .init(role: "system", content: [.init(type: "text", text: prompt.instructions)]),
        .init(role: "user", content: user),
      ],
      maxTokens: min(configuration.maximumTokens, prompt.maximumTokens ?? .max),
      stream: stream ? true : nil)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    do {
      return try encoder.encode(payload)
    } catch {
      throw .invalidResponse
    }
  }
}
