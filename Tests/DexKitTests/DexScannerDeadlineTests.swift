import DexKit
import DexKitTesting
import DexTestTraits
import Foundation
import Testing

/// A transport that never answers by itself: each attempt waits for the timeout the client gave
/// it and then fails the way `URLSessionTransport` does, recording that timeout.
final class SilentTransport: HTTPTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var timeouts: [Duration] = []

  var requestedTimeouts: [Duration] { lock.withLock { timeouts } }

  func send(_ request: TransportRequest, timeout: Duration) async throws -> TransportResponse {
    lock.withLock { timeouts.append(timeout) }
    try await Task.sleep(for: timeout)
    throw DexCloudError(kind: .timedOut, message: "No response in time.")
  }
}

/// The scanner's `cloudTimeout` is the one deadline of the cloud pass (over DexKitTesting's
/// doubles for the Pass-0 and on-device passes, so these tests run on every platform).
@Suite("DexScanner deadline", .offCooperativePool)
struct DexScannerDeadlineTests {
  /// A client whose session is already in its token store, with the default retry policy
  /// (four attempts in 300 s) and per-request timeout (120 s).
  static func service(_ transport: some HTTPTransport) -> DexVisionService {
    let credential = SessionCredential(
      sessionID: "dx1.k1.YQ.9999999999.nonce.tag", secret: SigningSecret("scanner-session")!,
      expiresAt: Date().addingTimeInterval(3600))
    let client = ApiClient(
      configuration: DexCloudConfiguration(
        baseURL: URL(string: "https://api.example.com")!,
        bootstrapKey: SigningSecret("scanner-bootstrap")!),
      transport: transport, tokenStore: InMemoryTokenStore(credential: credential))
    return DexVisionService(client: client)
  }

  @Test func theScannersTimeoutIsTheClientsBudget() async throws {
    let transport = SilentTransport()
    let final = await DexScanner(
      classifier: FixedClassifier.blind, visionService: Self.service(transport),
      downscaler: ScriptedDownscaler(),
      configuration: DexScanner.Configuration(cloudTimeout: .seconds(2))
    ).run(try SamplePhoto.fish.data)
    #expect(final.phase == .failed)
    #expect(final.error == .timedOut)
    // The client cut its attempts to the scanner's deadline instead of its own 120 s (on a
    // loaded machine the deadline may pass before the first attempt is sent; then none is).
    #expect(transport.requestedTimeouts.allSatisfy { $0 <= .seconds(2) })
  }

  @Test func aClientTimeoutIsTimedOutNotIdentificationFailed() async throws {
    // The service gives up by itself (its last attempt timed out) well before the scanner's
    // deadline: the scan still reports a timeout.
    let timedOut = DexCloudError(kind: .timedOut, message: "No response within 1 s.")
    let blind = await DexScanner(
      classifier: FixedClassifier.blind, visionService: ScriptedVisionService(.failure(timedOut)),
      downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(blind.error == .timedOut)
    guard case .timedOut? = blind.error else {
      Issue.record("expected timedOut, got \(String(describing: blind.error))")
      return
    }
    let guessed = await DexScanner(
      classifier: FixedClassifier(category: .animal, label: "tabby"),
      visionService: ScriptedVisionService(.failure(timedOut)), downscaler: ScriptedDownscaler()
    ).run(try SamplePhoto.cat.data)
    #expect(guessed.phase == .result)
    #expect(guessed.isOffline)
    guard case .timedOut? = guessed.cloudError else {
      Issue.record("expected timedOut, got \(String(describing: guessed.cloudError))")
      return
    }
  }

  @Test func theServiceIsGivenTheScannersDeadline() async throws {
    // An hour: the scripted reply is immediate, and the suite shares two cores with the others
    // (a 30 s budget once ran out while parallel tests held both of them).
    let budget = Duration.seconds(3600)
    let vision = ScriptedVisionService(.result(tabby))
    let before = ContinuousClock.now
    let final = await DexScanner(
      classifier: FixedClassifier.blind, visionService: vision, downscaler: ScriptedDownscaler(),
      configuration: DexScanner.Configuration(cloudTimeout: budget)
    ).run(try SamplePhoto.cat.data)
    let after = ContinuousClock.now
    #expect(final.result == tabby)
    let deadline = try #require(await vision.requests.first?.deadline)
    #expect(deadline >= before + budget)
    #expect(deadline <= after + budget)
  }

  @Test func scanErrorsAreEqualByCase() {
    struct A: Error {}
    struct B: Error {}
    #expect(DexScanError.identificationFailed(A()) == .identificationFailed(B()))
    #expect(DexScanError.nothingIdentified("one") == .nothingIdentified("other"))
    #expect(DexScanError.identificationFailed(A()) != .timedOut)
    #expect(DexScanError.unreadableImage(.emptyInput) != .unreadableImage(.outOfMemory))
    #expect(DexScanError.timedOut.recoverySuggestion != nil)
    #expect(DexScanError.cancelled.recoverySuggestion == nil)
  }
}
