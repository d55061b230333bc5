import DexModel

/// One step of a streamed identification
/// (``DexVisionServicing/streamIdentification(imageData:categoryHint:deadline:)``).
public enum IdentificationUpdate: Sendable, Equatable {
  /// More fields are known (the name first): a preview, which only grows.
  case partial(PartialScanResult)
  /// The finished entry, exactly what the whole reply parses to; the stream's last element.
  case complete(ScanResult)
}
