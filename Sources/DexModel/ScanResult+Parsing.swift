import Foundation

extension ScanResult {
  /// Parses a model reply tolerantly. (Filled in below.)
  public init(jsonString: String) throws {
    throw ParseError.noJSON
  }

  /// Why a reply did not yield a result.
  public enum ParseError: Error, Equatable, Sendable {
    case noJSON
  }

  static func decodeFields(from members: [String: JSONValue]) -> ScanResult {
    ScanResult(commonName: members["commonName"]?.stringValue ?? "", category: "unknown")
  }
}
