import DexImaging
import Foundation

/// Everything PixScan refuses or fails at, typed so that the HTTP layer answers each with its own
/// status and a clear JSON message, and tests can check which case happened.
public enum PixScanError: Error, Sendable, Hashable {
  /// A path in a request is empty, absolute, has `.` or `..` components, a NUL, or is too long.
  case invalidPath(String)
  /// A path resolves (through a symbolic link) to somewhere outside the triaged folder.
  case outsideFolder(String)
  /// No photo at this path (or it is not a regular file, or not an image PixScan lists).
  case notFound(String)
  /// The file is larger than ``PixScanLimits/maximumPhotoByteCount``.
  case photoTooLarge(path: String, byteCount: Int64, maximumByteCount: Int)
  /// A request body is larger than ``PixScanLimits/maximumRequestBodyByteCount``.
  case requestTooLarge(maximumByteCount: Int)
  /// A request is malformed (bad JSON, unknown action, out-of-range paging).
  case badRequest(String)
  /// The photo could not be decoded or downscaled.
  case imaging(path: String, ImagingError)
  /// Text recognition is not available or failed for this photo.
  case textRecognition(path: String, message: String)
  /// The trash is on another filesystem than the photo: a move would be a copy and a delete,
  /// which PixScan never does.
  case crossDevice(path: String, trash: String)
  /// The trash folder could not be created or written, or the move failed.
  case trashFailed(path: String, message: String)
  /// The folder could not be listed (missing, not a folder, unreadable).
  case folderUnreadable(path: String, message: String)
  /// The progress database could not be opened, read or written.
  case storeFailed(String)
  /// The request did not come from PixScan's own page: a missing or wrong token, a foreign
  /// `Host` (DNS rebinding) or `Origin` (another site).
  case forbidden(String)
  /// A request body that is not `application/json`.
  case unsupportedMediaType
  /// A file of PixScan's own build (the page) is missing: an install problem, not the user's.
  case resourceMissing(String)
  /// The photo's decision changed while this change was prepared; nothing was stored.
  case conflict(path: String)
  /// The request's task was cancelled (its client went away) while it waited its turn.
  case cancelled
}

extension PixScanError: LocalizedError {
  /// A one-line explanation fit for the page and the log (paths are relative to the folder).
  public var errorDescription: String? {
    switch self {
    case .invalidPath(let path):
      "“\(path.prefix(200))” is not a valid path inside the folder (no absolute paths, no . or ..)."
    case .outsideFolder(let path):
      "“\(path.prefix(200))” leads outside the folder PixScan was given."
    case .notFound(let path): "No photo at “\(path.prefix(200))”."
    case .photoTooLarge(let path, let byteCount, let maximumByteCount):
      "“\(path)” is \(byteCount) bytes, more than the \(maximumByteCount) bytes PixScan reads."
    case .requestTooLarge(let maximumByteCount):
      "The request body is larger than \(maximumByteCount) bytes."
    case .badRequest(let message): "Bad request: \(message)"
    case .imaging(let path, let error): "“\(path)” cannot be shown: \(error.description)"
    case .textRecognition(let path, let message): "Text in “\(path)”: \(message)"
    case .crossDevice(let path, let trash):
      "“\(path)” is on another filesystem than the trash (\(trash)); PixScan only moves files "
        + "within one filesystem and never deletes them."
    case .trashFailed(let path, let message):
      "“\(path)” could not be moved to the trash: \(message)"
    case .folderUnreadable(let path, let message): "The folder \(path) cannot be read: \(message)"
    case .storeFailed(let message): "The progress database failed: \(message)"
    case .forbidden(let message): "Forbidden: \(message)"
    case .resourceMissing(let name): "PixScan's \(name) is missing from the build."
    case .unsupportedMediaType: "The request body must be sent as application/json."
    case .conflict(let path): "“\(path.prefix(200))” changed meanwhile; try again."
    case .cancelled: "The request was cancelled while it waited its turn."
    }
  }

  /// A short, stable identifier of the case for the JSON error body (`invalid_path`, …).
  public var code: String {
    switch self {
    case .invalidPath: "invalid_path"
    case .outsideFolder: "outside_folder"
    case .notFound: "not_found"
    case .photoTooLarge: "photo_too_large"
    case .requestTooLarge: "request_too_large"
    case .badRequest: "bad_request"
    case .imaging: "imaging_failed"
    case .textRecognition: "text_recognition_failed"
    case .crossDevice: "cross_device"
    case .trashFailed: "trash_failed"
    case .folderUnreadable: "folder_unreadable"
    case .storeFailed: "store_failed"
    case .forbidden: "forbidden"
    case .unsupportedMediaType: "unsupported_media_type"
    case .conflict: "conflict"
    case .resourceMissing: "resource_missing"
    case .cancelled: "cancelled"
    }
  }

  /// The HTTP status the server answers this error with.
  public var httpStatus: Int {
    switch self {
    case .invalidPath, .badRequest: 400
    case .outsideFolder, .forbidden: 403
    case .notFound: 404
    case .photoTooLarge, .requestTooLarge: 413
    case .imaging: 422
    case .textRecognition, .cancelled: 503
    case .crossDevice, .trashFailed, .conflict: 409
    case .unsupportedMediaType: 415
    case .folderUnreadable, .storeFailed, .resourceMissing: 500
    }
  }
}
