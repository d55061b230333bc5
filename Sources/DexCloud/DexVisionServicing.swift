import DexModel
import Foundation

/// The cloud identification pass: a photo in, a structured ``/DexModel/ScanResult`` out.
///
/// The scan flow depends on this protocol rather than on ``DexVisionService`` so that it can be
/// tested with a stand-in and so a host can route identification elsewhere.
public protocol DexVisionServicing: Sendable {
  /// Identifies the main subject of `imageData`: JPEG or PNG bytes, the two formats the wire
  /// carries (dex-proxy labels PNG bytes `image/png` and any others `image/jpeg` upstream).
  ///
  /// DexKit's `DexScanner` always sends the JPEG it encoded from the downscaled photo, whatever
  /// the photo was: JPEG, PNG, HEIF/HEIC, AVIF or WebP on Linux with the `SystemImageCodecs`
  /// trait; on Apple platforms (or without the trait), whatever the host's `ImageDownscaling`
  /// conformance decodes.
  ///
  /// - Parameters:
  ///   - imageData: the encoded photo, already downscaled.
  ///   - categoryHint: the on-device guess's category (for example ``/DexModel/DexCategory/plant``),
  ///     a weak hint only; `nil` when the local pass found nothing.
  func identify(imageData: Data, categoryHint: DexCategory?) async throws -> ScanResult

  /// Identifies the main subject of `imageData`, giving up at `deadline`: the scanner's one
  /// deadline for the whole cloud pass, retries and their waits included.
  ///
  /// A conformance that can stop on its own (``DexVisionService`` passes the deadline to
  /// ``ApiClient`` as its time budget) implements this and throws a ``DexCloudError`` of kind
  /// ``DexCloudError/Kind/timedOut`` when the deadline passes. The default implementation calls
  /// ``identify(imageData:categoryHint:)`` and leaves the deadline to the caller, which stops
  /// waiting at it.
  ///
  /// - Parameters:
  ///   - imageData: the encoded photo, already downscaled.
  ///   - categoryHint: the on-device guess's category, a weak hint only.
  ///   - deadline: the instant by which the answer is needed.
  func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult

  /// AI Vision: describes `imageData`, or answers `question` about it.
  ///
  /// The default implementation refuses (a service that only identifies); ``DexVisionService``
  /// asks the backend's `/vision` route with task `ask`.
  ///
  /// - Parameters:
  ///   - imageData: the encoded photo, already downscaled.
  ///   - question: what to ask about the photo ("What ingredients are in this dish?"); `nil`
  ///     or empty for a general description.
  ///   - deadline: when the whole call must be over; `nil` for the client's own budget.
  func describe(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) async throws -> VisionDescription

  /// AI Vision, streamed: the description's text in pieces as the model writes it (joined,
  /// they are the description). Ending the iteration or cancelling its task cancels the call.
  ///
  /// The default implementation yields ``describe(imageData:question:deadline:)``'s text once.
  func streamDescription(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<String, any Error>

  /// Identification, streamed: ``IdentificationUpdate/partial(_:)`` as fields arrive (the name
  /// first), then one ``IdentificationUpdate/complete(_:)`` with the entry the whole reply
  /// parses to. A stream that stops before its end throws ``/DexModel/InterruptedScanError``
  /// with the fields so far (when any byte of the reply had arrived).
  ///
  /// The default implementation yields ``identify(imageData:categoryHint:deadline:)``'s entry
  /// once.
  func streamIdentification(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<IdentificationUpdate, any Error>
}

extension DexVisionServicing {
  /// Calls ``identify(imageData:categoryHint:)``; the caller stops waiting at `deadline`.
  public func identify(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant
  ) async throws -> ScanResult {
    try await identify(imageData: imageData, categoryHint: categoryHint)
  }
}

// MARK: AI Vision and streaming

extension DexVisionServicing {
  /// Refuses: a service describes photos only when it implements
  /// ``describe(imageData:question:deadline:)`` (``DexVisionService`` does).
  ///
  /// - Throws: ``DexCloudError`` of kind ``DexCloudError/Kind/invalidConfiguration``.
  public func describe(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) async throws -> VisionDescription {
    throw DexCloudError(
      kind: .invalidConfiguration, message: "This vision service does not describe photos.")
  }

  /// The description of ``describe(imageData:question:deadline:)`` in one piece, for services
  /// that do not stream.
  public func streamDescription(
    imageData: Data, question: String?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<String, any Error> {
    AsyncThrowingStream.running { continuation in
      let description = try await describe(
        imageData: imageData, question: question, deadline: deadline)
      continuation.yield(description.text)
    }
  }

  /// The entry of ``identify(imageData:categoryHint:deadline:)`` as one
  /// ``IdentificationUpdate/complete(_:)``, for services that do not stream.
  public func streamIdentification(
    imageData: Data, categoryHint: DexCategory?, deadline: ContinuousClock.Instant?
  ) -> AsyncThrowingStream<IdentificationUpdate, any Error> {
    AsyncThrowingStream.running { continuation in
      let result =
        if let deadline {
          try await identify(imageData: imageData, categoryHint: categoryHint, deadline: deadline)
        } else {
          try await identify(imageData: imageData, categoryHint: categoryHint)
        }
      continuation.yield(.complete(result))
    }
  }
}

extension AsyncThrowingStream where Failure == any Error {
  /// A stream fed by `body` in a task of its own, which the stream's end (its consumer
  /// stopping, or its task being cancelled) cancels.
  package static func running(
    _ body: @escaping @Sendable (Continuation) async throws -> Void
  ) -> AsyncThrowingStream {
    AsyncThrowingStream { continuation in
      let task = Task {
        do {
          try await body(continuation)
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
