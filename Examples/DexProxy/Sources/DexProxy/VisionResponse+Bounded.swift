import DexCloud
import DexModel
import Foundation

extension VisionResponse {
  /// The longest refusal or unreadable identification passed on, in characters: enough for a
  /// model's "I can't help with that", too little to be a general-purpose answer.
  static let maximumUnreadableCharacters = 300
  /// The longest description passed on, in characters (150 words with room to spare).
  static let maximumDescriptionCharacters = 2_000

  /// The role every reply carries: the upstream's own `role` is not passed on (a client needs
  /// none, and it is text of any length the model service chose).
  static let assistantRole = "assistant"

  /// What the app gets of the model's answer to a `task` request.
  ///
  /// An identification comes back as the fields the app reads, re-encoded from what
  /// ``DexModel/ScanResult/init(jsonString:)`` parsed (each field bounded by it), as
  /// `content` for clients that parse it and typed, as `entry`; an answer it
  /// cannot read (a refusal, or whatever a prompt injection made the model write) comes back
  /// cut to ``maximumUnreadableCharacters``, so that the app still sees a refusal as one. A
  /// description is cut at ``maximumDescriptionCharacters``.
  func bounded(for task: VisionRequest.Kind) -> VisionResponse {
    switch task {
    case .identify:
      if let result = try? ScanResult(jsonString: content),
        let data = try? JSONEncoder().encode(result)
      {
        return VisionResponse(
          role: Self.assistantRole, content: String(decoding: data, as: UTF8.self), entry: result)
      }
      return VisionResponse(
        role: Self.assistantRole, content: String(content.prefix(Self.maximumUnreadableCharacters)))
    case .ask:
      return VisionResponse(
        role: Self.assistantRole, content: String(content.prefix(Self.maximumDescriptionCharacters))
      )
    }
  }
}
