extension ShimStatus {
  /// Throws what a failed call of a `format` decoder means to a caller, the same for every
  /// format: the data ended early, memory ran out, a caller error, or otherwise corrupt data
  /// with the library's `message`.
  func check(
    decoding format: ImageFormat, message: @autoclosure () -> String
  ) throws(ImagingError) {
    switch self {
    case .ok: return
    case .truncated: throw .truncatedData(format: format)
    case .outOfMemory: throw .outOfMemory
    case .invalidArgument: throw .invalidArgument(message())
    default: throw .corruptData(format: format, message: message())
    }
  }
}
