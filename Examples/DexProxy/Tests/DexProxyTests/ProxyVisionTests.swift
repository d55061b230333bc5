import DexCloud
import DexCloudServer
import DexExamplesTestSupport
import DexModel
import DexProxy
import DexProxyTesting
import Foundation
import Testing

/// `POST /vision` end to end: DexCloud's real client and `DexVisionService` → dex-proxy → a
/// stub OpenAI-compatible upstream, all over loopback HTTP.
@Suite struct ProxyVisionTests {
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func happyPathReturnsParsedResultAndForwardsAnOpenAIRequest() async throws {
    try await ProxyHarness.with { proxy in
      let result = try await proxy.vision().identify(imageData: sampleImage, categoryHint: .plant)
      #expect(result.commonName == "Monstera Deliciosa")
      #expect(result.dexCategory == .plant)
      #expect(result.facts.count == 3)

      let sent = try #require(proxy.upstream.received.last)
      #expect(sent.model == "gpt-test")
      #expect(sent.maxTokens == 800)
      #expect(sent.authorization == "Bearer \(ProxyHarness.apiKeyText)")
      #expect(sent.imageURL == "data:image/jpeg;base64,\(sampleImage.base64EncodedString())")
      let prompt = try #require(sent.instructions)
      #expect(prompt == DexPrompt.identification(hint: .plant))
      #expect(prompt.contains("guessed the category \"Plant\""))
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func withoutHintThePromptHasNoHintLine() async throws {
    try await ProxyHarness.with { proxy in
      _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      let prompt = try #require(proxy.upstream.received.last?.instructions)
      #expect(!prompt.contains("guessed the category"))
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func fencedReplyIsParsed() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.content("```json\n" + StubUpstream.cleanJSON + "\n```"))
      let result = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      #expect(result.commonName == "Monstera Deliciosa")
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func truncatedReplyComesBackAsTheFieldsItHolds() async throws {
    let truncated = #"{"commonName":"Clownfish","category":"fish","summary":"An orange reef fi"#
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.content(truncated, finishReason: "length"))
      let body = try JSONEncoder().encode(
        VisionRequest.identify(image: sampleImage.base64EncodedString(), categoryHint: nil))
      let reply = try await proxy.client().send(
        Endpoints.vision, body: body, as: VisionResponse.self)
      // What the tolerant parser recovers, re-encoded: the app reads the same fields.
      #expect(reply.content != truncated)
      #expect(try ScanResult(jsonString: reply.content) == ScanResult(jsonString: truncated))
      // The client's tolerant parser recovers what the truncated object holds.
      proxy.upstream.enqueue(.content(truncated, finishReason: "length"))
      let result = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      #expect(result.commonName == "Clownfish")
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func refusalReachesTheClientAsARefusal() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.enqueue(.refusal("I'm sorry, but I can't help with identifying this image."))
      await #expect {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      } throws: { error in
        guard case .refusal = error as? ScanResult.ParseError else { return false }
        return true
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test(arguments: [(429, "upstream_rate_limited"), (500, "upstream_error")])
  func upstreamFailureBecomesA502(status: Int, code: String) async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.setFallback(.status(status))
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: .plant)
      }
      #expect(error?.statusCode == 502)
      #expect(error?.apiError?.code == code)
      #expect(proxy.upstream.received.count == 2)  // the client retried a 502 once
    }
  }

  /// An upstream refusing the proxy's own credentials (401, 403) is a 502 whose message names
  /// no status: a client learns the call failed, not that the provider key is wrong.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test(arguments: [401, 403, 404])
  func upstreamRefusalNamesNoStatus(status: Int) async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.setFallback(.status(status))
      let session = try await proxy.rawSession()
      let response = try await proxy.sendVision(
        try visionBody("refused"), secret: session.sessionSecret, session: session.sessionID)
      let text = String(decoding: response.body, as: UTF8.self)
      #expect(response.statusCode == 502)
      #expect(errorCode(response.body) == "upstream_error")
      #expect(!text.contains("\(status)"), "\(text)")
      #expect(text.contains("refused the proxy's call"))
      // The proxy's own log keeps the status for whoever runs it.
      #expect(
        proxy.logs.lines.contains { $0.contains("Upstream refused") && $0.contains("\(status)") })
    }
  }

  /// The reply's role is always `assistant`, whatever the model service sent there.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func theUpstreamsRoleIsNotPassedOn() async throws {
    try await ProxyHarness.with { proxy in
      let long = String(repeating: "r", count: 100_000)
      for role in ["system", long] {
        proxy.upstream.enqueue(.roleContent(role: role, content: "A short description."))
        let session = try await proxy.rawSession()
        let response = try await proxy.sendVision(
          try visionBody("role \(role.count)"), secret: session.sessionSecret,
          session: session.sessionID)
        #expect(response.statusCode == 200)
        let reply = try JSONDecoder().decode(VisionResponse.self, from: response.body)
        #expect(reply.role == "assistant")
        #expect(reply.content == "A short description.")
        #expect(response.body.count < 1000)
      }
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func slowUpstreamBecomesA504() async throws {
    try await ProxyHarness.with(configure: { $0.upstream.timeout = .milliseconds(300) }) { proxy in
      proxy.upstream.setFallback(.slow(.seconds(3), .content(StubUpstream.cleanJSON)))
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      }
      #expect(error?.statusCode == 504)
      #expect(error?.apiError?.code == "upstream_timeout")
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func unreachableUpstreamBecomesA502() async throws {
    try await ProxyHarness.with(configure: {
      // Port 9 (discard) on loopback: nothing listens, the connection is refused.
      $0.upstream.baseURL = URL(string: "http://127.0.0.1:9/v1")!
    }) { proxy in
      // With the harness's upstream timeout (30 s): the proxy's upstream client does not retry
      // a refused connection until that deadline, it answers at once.
      let started = ContinuousClock.now
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      }
      #expect(error?.statusCode == 502)
      #expect(error?.apiError?.code == "upstream_unreachable")
      #expect(ContinuousClock.now - started < .seconds(20), "took \(ContinuousClock.now - started)")
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func upstreamBodyThatIsNotACompletionBecomesA502() async throws {
    try await ProxyHarness.with { proxy in
      proxy.upstream.setFallback(.content(""))
      let error = await #expect(throws: DexCloudError.self) {
        _ = try await proxy.vision().identify(imageData: sampleImage, categoryHint: nil)
      }
      #expect(error?.statusCode == 502)
      #expect(error?.apiError?.code == "upstream_invalid_response")
    }
  }
}
