import DexModel

/// The body of `POST /vision`: a base64 image and what to do with it. The prompt itself is the
/// server's: the client names a ``Kind`` and contributes at most a category hint or a short
/// question, which the server bounds and wraps in its own instructions.
///
/// On the wire: `{"image":"<base64>","task":"identify","categoryHint":"plant"}` or
/// `{"image":"<base64>","task":"ask","question":"What ingredients are in this dish?"}`.
public struct VisionRequest: Codable, Sendable, Equatable {
  /// What the server is asked to do with the image.
  public enum Kind: String, Codable, Sendable, Equatable {
    /// A Dex identification: the server's identification prompt, answered with the JSON that
    /// ``/DexModel/ScanResult/init(jsonString:)`` reads.
    case identify
    /// AI Vision: a description of the image, focused by an optional ``VisionRequest/question``.
    case ask
  }

  /// The image, base64-encoded: JPEG or PNG (the proxy labels PNG bytes `image/png` and any
  /// others `image/jpeg`); DexKit's `DexScanner` sends the JPEG it encoded, whatever format the
  /// photo came in (see ``DexVisionServicing/identify(imageData:categoryHint:)``).
  public let image: String
  /// What to do with the image; `identify` when a body omits it.
  public let task: Kind
  /// For ``Kind/identify``: the on-device category guess (a ``/DexModel/DexCategory`` raw value
  /// such as `"plant"`), a weak hint only; the server ignores values it does not know.
  public let categoryHint: String?
  /// For ``Kind/ask``: the user's question; `nil` or empty for a general description. The
  /// server refuses one longer than its limit (400 `prompt_too_long`, 500 characters by default).
  public let question: String?
  /// `true` to have the reply streamed as Server-Sent Events (see <doc:RequestSigning>); `nil`
  /// or `false` for one JSON ``VisionResponse``.
  public let stream: Bool?

  /// Creates a request body.
  public init(
    image: String, task: Kind, categoryHint: String? = nil, question: String? = nil,
    stream: Bool? = nil
  ) {
    self.image = image
    self.task = task
    self.categoryHint = categoryHint
    self.question = question
    self.stream = stream
  }

  /// An identification request with `hint` (``/DexModel/DexCategory/unknown`` sends none).
  public static func identify(
    image: String, categoryHint hint: DexCategory?, stream: Bool = false
  ) -> VisionRequest {
    VisionRequest(
      image: image, task: .identify,
      categoryHint: hint.flatMap { $0 == .unknown ? nil : $0.rawValue }, stream: stream ? true : nil
    )
  }

  /// An AI Vision request: a description of `image`, focused by `question` when given,
  /// streamed when `stream` is `true`.
  public static func ask(
    image: String, question: String? = nil, stream: Bool = false
  )
    -> VisionRequest
  {
    VisionRequest(image: image, task: .ask, question: question, stream: stream ? true : nil)
  }

  private enum CodingKeys: String, CodingKey { case image, task, categoryHint, question, stream }

  /// Decodes a body; one without `task` is an identification (bodies of older clients, whose
  /// `prompt` field is no longer read).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    image = try container.decode(String.self, forKey: .image)
    task = try container.decodeIfPresent(Kind.self, forKey: .task) ?? .identify
    categoryHint = try container.decodeIfPresent(String.self, forKey: .categoryHint)
    question = try container.decodeIfPresent(String.self, forKey: .question)
    stream = try container.decodeIfPresent(Bool.self, forKey: .stream)
  }
}
