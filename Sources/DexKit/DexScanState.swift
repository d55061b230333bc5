import DexModel
import Foundation

/// A snapshot of a scan, published by ``DexScanner/scan(_:)`` as the scan moves through its
/// phases, so a UI or a terminal can show "Analyzing…", then "Looks like a Plant…", then the
/// entry.
public struct DexScanState: Sendable, Equatable {
  /// Where the scan is.
  public enum Phase: Sendable, Equatable {
    /// The photo is being decoded and encoded.
    case capturing
    /// The encoded image exists; the passes are running.
    case analyzing
    /// The cloud's reply is streaming in: ``DexScanState/partialResult`` holds the fields
    /// known so far (the name first), so a UI shows the name while the rest arrives.
    case identifying
    /// A result is ready (possibly the offline fallback).
    case result
    /// Nothing could be identified; see ``DexScanState/error``.
    case failed
  }

  /// The current phase.
  public var phase: Phase = .capturing
  /// The downscaled JPEG every pass used; what a host persists.
  public var imageData: Data?
  /// A small JPEG for grids, resampled from the same decode
  /// (``DexScanner/Configuration/maximumThumbnailDimension``); `nil` when none was asked for.
  public var thumbnailData: Data?
  /// The on-device guess, once the local pass has run (`nil` if it found nothing).
  public var localGuess: LocalGuess?
  /// The fields of the cloud's identification known so far, from phase ``Phase/identifying``
  /// on (kept in the final state, for the record); a preview that only grows, never something
  /// to save. The entry is ``result``.
  public var partialResult: PartialScanResult?
  /// The identification, in phase ``Phase/result``.
  public var result: ScanResult?
  /// Whether ``result`` is the offline fallback rather than the cloud's answer.
  public var isOffline = false
  /// Why the cloud pass failed when the result is an offline fallback (``DexScanError/timedOut``
  /// or ``DexScanError/identificationFailed(_:)`` with the service's error).
  public var cloudError: DexScanError?
  /// Why the scan failed, in phase ``Phase/failed``.
  public var error: DexScanError?
  /// The text read in the photo, in phase ``Phase/result``, when the scanner has a text
  /// recognizer and it succeeded (possibly with no line).
  public var recognizedText: RecognizedText?
  /// Why the text pass failed, when it did; the scan's result stands regardless.
  public var textRecognitionError: TextRecognitionError?

  /// Creates the initial state of a scan.
  public init() {}

  /// Builds, but does not save, an entry for this scan's result, its category matched by
  /// `matcher` and ``recognizedText`` kept (when there was any line); `nil` without a result.
  public func makeEntry(
    id: String = UUID().uuidString, discoveredAt: Date = Date(),
    matcher: any DexCategoryMatching = DexKeywordMatcher.standard
  ) -> DexEntry? {
    guard let result, imageData != nil else { return nil }
    let text = recognizedText.flatMap { $0.isEmpty ? nil : $0.string }
    return DexEntry(
      scan: result, localGuess: localGuess, id: id, discoveredAt: discoveredAt, matcher: matcher,
      recognizedText: text)
  }

  func failing(_ error: DexScanError) -> DexScanState {
    var copy = self
    copy.phase = .failed
    copy.error = error
    return copy
  }

  func succeeding(_ result: ScanResult, offline: Bool) -> DexScanState {
    var copy = self
    copy.phase = .result
    copy.result = result
    copy.isOffline = offline
    return copy
  }
}
