#if os(Linux) && SystemImageCodecs
  import CDexImageShim

  extension ImageDownscaler {
    /// Why this host cannot decode `format`, or `nil` when it can.
    ///
    /// The reason is the one ``ImagingError/decoderUnavailable(format:reason:)`` carries when a
    /// photo of that format is refused, read from the libraries linked here without decoding
    /// anything. Today only HEIF and AVIF can be unavailable: they need libheif 1.19 or later
    /// (older versions have no security limits), so on Ubuntu 24.04, with libheif 1.17, the
    /// answer for both is "libheif 1.17 has no security limits; install 1.19 or later". An app
    /// can say up front which photos it takes, and tests can follow the host's libraries.
    /// ``IsolatedImageDecoder``'s workers link the same libraries and give the same answer.
    public static func decoderUnavailableReason(for format: ImageFormat) -> String? {
      switch format {
      case .heif, .avif:
        var message = [CChar](repeating: 0, count: Int(DEX_MESSAGE_CAPACITY))
        guard dex_heif_library_supported(&message) == 0 else { return nil }
        let text = message.prefix { $0 != 0 }.map(UInt8.init(bitPattern:))
        return String(decoding: text, as: UTF8.self)
      case .jpeg, .png, .webp:
        return nil
      }
    }
  }
#endif
