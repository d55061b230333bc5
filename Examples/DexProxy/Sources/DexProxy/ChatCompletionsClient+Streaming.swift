import DexCloud
import Foundation

extension ChatCompletionsClient {
  /// Sends `prompt` and `image` upstream with `stream: true` and returns the model's message
  /// in pieces as they arrive (the `delta` texts of OpenAI's Server-Sent Events; a refusal's
  /// text too). An upstream that answers with one JSON completion instead gives its message as
  /// one piece.
  ///
  /// Failures before the reply's body are thrown here; failures while it streams (the
  /// transport's size cap and timeout, an unreadable event) end the stream with an
  /// ``UpstreamError``. Ending the iteration cancels the upstream call.
  public func stream(
    _ prompt: ProxyPrompt, image: String
  ) async throws(UpstreamError) -> AsyncThrowingStream<String, any Error> {
    let request = try request(prompt, image: image, stream: true)
    let response: TransportStreamResponse
    do {
      response = try await transport.stream(request, timeout: configuration.timeout)
    } catch {
      throw upstreamError(error)
    }
    try refuseUnlessSuccessful(response.statusCode)
    let isEvents =
      response.value(forHeader: "content-type")?.lowercased().hasPrefix("text/event-stream")
      ?? false
    let (pieces, sink) = AsyncThrowingStream<String, any Error>.makeStream()
    let client = self
    let pump = Task {
      do {
        try await Self.relay(response.body, isEvents: isEvents, to: sink)
        sink.finish()
      } catch {
        sink.finish(throwing: client.upstreamError(error))
      }
    }
    sink.onTermination = { _ in pump.cancel() }
    return pieces
  }

  /// Reads the upstream body into `sink`: event by event until `[DONE]`, or one whole JSON
  /// completion (already bounded by the transport's size cap).
  private static func relay(
    _ body: AsyncThrowingStream<Data, any Error>, isEvents: Bool,
    to sink: AsyncThrowingStream<String, any Error>.Continuation
  ) async throws {
    var events = ServerSentEventParser()
    var whole = Data()
    for try await chunk in body {
      guard isEvents else {
        whole.append(chunk)
        continue
      }
      for event in try events.consume(chunk) {
        if event.data == "[DONE]" { return }
        guard
          let piece = try? JSONDecoder().decode(
            ChatCompletionChunk.self, from: Data(event.data.utf8))
        else { throw UpstreamError.invalidResponse }
        if !piece.text.isEmpty { sink.yield(piece.text) }
      }
    }
    guard !isEvents else { return }
    guard let decoded = try? JSONDecoder().decode(ChatCompletionResponse.self, from: whole),
      let message = decoded.choices.first?.message,
      let content = message.content.flatMap({ $0.isEmpty ? nil : $0 }) ?? message.refusal
    else { throw UpstreamError.invalidResponse }
    sink.yield(content)
  }
}
