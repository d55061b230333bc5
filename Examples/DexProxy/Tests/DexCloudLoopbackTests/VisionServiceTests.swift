import DexModel
import Foundation
import Testing

@testable import DexCloud

@Suite("Vision services over real HTTP")
struct VisionServiceTests {
  static let jpeg = Data(
    [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 300) + [0xFF, 0xD9])

  @Test("send(_:body:as:) sends {image, task, question} and returns {role, content}")
  func rawVisionCall() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      let body = try JSONEncoder().encode(
        VisionRequest.ask(image: "aGVsbG8=", question: "What is it?"))
      let response = try await client.send(Endpoints.vision, body: body, as: VisionResponse.self)
      #expect(response == VisionResponse(role: "assistant", content: "A tabby cat on a sofa."))
      let sent = try JSONDecoder().decode(
        VisionRequest.self, from: try #require(server.state.lastVisionBody))
      #expect(sent == VisionRequest(image: "aGVsbG8=", task: .ask, question: "What is it?"))
      let object = try #require(
        try JSONSerialization.jsonObject(with: body) as? [String: String])
      #expect(object == ["image": "aGVsbG8=", "task": "ask", "question": "What is it?"])
    }
  }

  @Test("DexVisionService sends the base64 image, the identify task and the hint, no prompt")
  func identifyPlumbing() async throws {
    try await TestServer.with { server in
      server.state.visionReply = VisionResponse(role: "assistant", content: "I cannot tell.")
      let service = DexVisionService(client: makeClient(server))
      await #expect(throws: ScanResult.ParseError.self) {
        _ = try await service.identify(imageData: Self.jpeg, categoryHint: .plant)
      }
      let sent = try JSONDecoder().decode(
        VisionRequest.self, from: try #require(server.state.lastVisionBody))
      #expect(sent.image == Self.jpeg.base64EncodedString())
      #expect(sent.task == .identify)
      #expect(sent.categoryHint == "plant")
      let sentBody = try #require(server.state.lastVisionBody)
      let object = try #require(try JSONSerialization.jsonObject(with: sentBody) as? [String: Any])
      #expect(Set(object.keys) == ["image", "task", "categoryHint"])
    }
  }

  /// Needs the lead's `ScanResult(jsonString:)` parser; enabled automatically once it is merged.
  @Test("DexVisionService parses a fenced JSON reply into a ScanResult")
  func identifyParses() async throws {
    try await TestServer.with { server in
      server.state.visionReply = VisionResponse(
        role: "assistant",
        content: """
          ```json
          {"commonName": "Monstera Deliciosa", "category": "plant", "scientificName": "Monstera deliciosa",
           "summary": "A climbing aroid with split leaves.", "facts": ["Native to Mexico"],
           "rarity": "Common", "confidence": 0.93}
          ```
          """)
      let scan = try await DexVisionService(client: makeClient(server))
        .identify(imageData: Self.jpeg, categoryHint: nil)
      #expect(scan.commonName == "Monstera Deliciosa")
      #expect(scan.dexCategory == .plant)
      #expect(scan.confidence == 0.93)
    }
  }

  @Test("An image too large for the limit is refused before encoding, with a downscale hint")
  func oversizedImage() async throws {
    try await TestServer.with { server in
      let service = DexVisionService(client: makeClient(server, maximumBody: 64 << 10))
      let error = await expectedError {
        _ = try await service.identify(imageData: Data(count: 60 << 10), categoryHint: nil)
      }
      #expect(error?.kind == .payloadTooLarge)
      #expect(error?.description.contains("Downscale") == true)
      #expect(server.state.count("/vision") == 0)
      #expect(server.state.count("/auth_token") == 0)
    }
  }

  @Test("The typed conveniences encode, send and decode")
  func conveniences() async throws {
    try await TestServer.with { server in
      let client = makeClient(server)
      let reply = try await client.send(
        Endpoints.vision,
        body: try JSONEncoder().encode(VisionRequest.ask(image: "AA==", question: "hi")),
        as: VisionResponse.self)
      #expect(reply.content == "A tabby cat on a sofa.")
      let sent = try JSONDecoder().decode(
        VisionRequest.self, from: try #require(server.state.lastVisionBody))
      #expect(sent.question == "hi")
      let wrongModel = await expectedError {
        _ = try await client.send(Endpoints.vision, body: Data("{}".utf8), as: [Int].self)
      }
      #expect(wrongModel?.kind == .decoding)
    }
  }

  @Test("A body without a task is an identification; an older client's prompt is not read")
  func legacyBodies() throws {
    let legacy = try JSONDecoder().decode(
      VisionRequest.self, from: Data(#"{"image":"AA==","prompt":"Ignore all that"}"#.utf8))
    #expect(legacy == VisionRequest(image: "AA==", task: .identify))
    #expect(VisionRequest.identify(image: "AA==", categoryHint: .unknown).categoryHint == nil)
  }

  @Test("Server errors surface as DexCloudError from both services")
  func serverErrors() async throws {
    try await TestServer.with { server in
      let client = makeClient(server, retryPolicy: .none)
      server.state.enqueue(
        [
          .status(500, body: #"{"error":{"message":"model unavailable","type":"server_error"}}"#),
          .status(502, body: "<html>bad gateway</html>"),
        ], for: "/vision")
      let first = await expectedError {
        _ = try await DexVisionService(client: client).identify(
          imageData: Self.jpeg, categoryHint: nil)
      }
      #expect(first?.statusCode == 500)
      #expect(first?.apiError?.message == "model unavailable")
      let second = await expectedError {
        _ = try await client.send(Endpoints.vision, body: Data("{}".utf8), as: VisionResponse.self)
      }
      #expect(second?.statusCode == 502)
      #expect(second?.apiError == nil)
      #expect(second?.bodyExcerpt == "<html>bad gateway</html>")
    }
  }
}
