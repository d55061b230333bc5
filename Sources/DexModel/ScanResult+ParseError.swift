import Foundation

extension ScanResult {
  /// Why a model reply did not yield a ``ScanResult``.
  ///
  /// Each case names a different failure so that a host can tell "the model refused" from
  /// "the proxy returned an error" from "the reply was garbage", and log or retry accordingly.
  /// Messages are short and never repeat more than a brief excerpt of the reply.
  public enum ParseError: Error, Equatable, Hashable, Sendable {
    /// The reply was empty or whitespace.
    case emptyReply
    /// The reply holds no JSON object at all (and does not read as a refusal).
    case noJSON
    /// JSON-looking text was found but none of it could be read, even leniently.
    case malformedJSON
    /// The model declined, either in prose or in a `{"refusal": …}` object; carries a short
    /// excerpt of its reason.
    case refusal(String)
    /// The reply is an API error object (`{"error": {"message": …}}`); carries its message.
    case apiError(String)
    /// The JSON object is empty, `{}`.
    case emptyObject
    /// JSON was read but identifies nothing: an empty name, or "Unknown" with no summary.
    case noIdentification
  }
}

extension ScanResult.ParseError: LocalizedError {
  /// A one-line explanation suitable for logs and error banners.
  public var errorDescription: String? {
    switch self {
    case .emptyReply: "The identification reply was empty."
    case .noJSON: "The identification reply contained no JSON object."
    case .malformedJSON: "The identification reply contained JSON that could not be read."
    case .refusal(let reason):
      reason.isEmpty
        ? "The model declined to identify the photo."
        : "The model declined to identify the photo: \(reason)"
    case .apiError(let message):
      message.isEmpty
        ? "The identification service returned an error."
        : "The identification service returned an error: \(message)"
    case .emptyObject: "The identification reply was an empty JSON object."
    case .noIdentification: "The identification reply did not identify anything."
    }
  }
}

extension ScanResult.ParseError: CustomStringConvertible {
  /// Same as ``errorDescription``.
  public var description: String { errorDescription ?? "ScanResult.ParseError" }
}
