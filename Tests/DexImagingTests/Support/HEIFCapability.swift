#if os(Linux) && SystemImageCodecs
  import Foundation
  import Testing

  @testable import DexImaging

  /// The HEIF and AVIF tests' one look at the host: whether its libheif decodes them, as the SDK
  /// itself reports it (``ImageDownscaler/decoderUnavailableReason(for:)``). With libheif 1.19
  /// or later every case runs as written; with an older one (Ubuntu 24.04 has 1.17) DexImaging
  /// refuses HEIF and AVIF by design, and each case asserts that typed refusal of its own file
  /// instead, so that a case checks something, and can fail, on either kind of host.
  enum HEIFCapability {
    /// Why this host's libheif is refused, or `nil` where it decodes HEIF and AVIF.
    static let refusal = ImageDownscaler.decoderUnavailableReason(for: .heif)

    /// The oldest libheif DexImaging decodes with (the first with security limits).
    static let minimumVersion = (major: 1, minor: 19)

    /// Whether a case that decodes `data` goes on: yes for a photo that is not HEIF or AVIF,
    /// and for every photo where libheif decodes them. Otherwise `result`, the case's own decode
    /// of `data`, must be the typed refusal (an issue is recorded if not) and the answer is no:
    /// the case's checks of the decoded image have no image to check.
    static func decodes<Value>(
      _ data: Data, giving result: Result<Value, ImagingError>,
      sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
      guard let format = try? ImageFormat.sniff(data), format == .heif || format == .avif,
        refusal != nil
      else { return true }
      switch result {
      case .success:
        Issue.record(
          "\(format.name) decoded, though the SDK reports \(refusal ?? "")",
          sourceLocation: sourceLocation)
      case .failure(let error):
        #expect(isRefusal(error, of: format), "\(error)", sourceLocation: sourceLocation)
      }
      return false
    }

    /// ``decodes(_:giving:sourceLocation:)`` with `data` decoded here, in process.
    static func decodes(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
      let result = Result { () throws(ImagingError) in
        try ImageDownscaler().decodePixels(from: data, target: .original)
      }
      return decodes(data, giving: result, sourceLocation: sourceLocation)
    }

    /// Whether `error` is the refusal of an old libheif for a photo of `format`: the typed
    /// error, carrying the reason the SDK reports, which names a libheif version older than 1.19
    /// and says to install 1.19.
    static func isRefusal(_ error: ImagingError, of format: ImageFormat) -> Bool {
      guard case .decoderUnavailable(format, let reason) = error, reason == refusal else {
        return false
      }
      let pattern = /libheif (\d+)\.(\d+) has no security limits; install 1\.19 or later/
      guard let match = reason.wholeMatch(of: pattern),
        let major = Int(match.1), let minor = Int(match.2)
      else { return false }
      return (major, minor) < minimumVersion && error.description.contains(reason)
    }
  }
#endif
