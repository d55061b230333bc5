// Signing and verification throughput of DexCloud, built in release by run.sh.
// Prints one line per body size: "size ours_sign_ns ours_verify_ns" (medians of 7 runs).
import DexCloud
import DexCloudServer
import Foundation

let secret = SigningSecret("benchmark-secret-key-0123456789")!
let signer = RequestSigner(secret: secret)
let sizes = [0, 1024, 262_144]
let runs = 7

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

for size in sizes {
  let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
  let iterations = size > 100_000 ? 200 : 20_000
  var signTimes: [Double] = []
  var verifyTimes: [Double] = []
  var sink = 0
  for run in 0..<runs {
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<iterations {
      let headers = signer.headers(
        method: "POST", path: "/vision", body: body, timestamp: 1_700_000_000 + Int64(index))
      sink &+= headers.count
    }
    signTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations))

    // Verification with a fresh replay cache per run; timestamps inside the window.
    let now = Date()
    let base = Int64(now.timeIntervalSince1970) - 200 + Int64(run)
    let verifier = RequestVerifier(
      replayCache: InMemoryReplayCache(capacity: iterations * 2), now: { now })
    let requests = (0..<iterations).map { index -> SignedRequest in
      let path = "/vision?i=\(index)"
      let headers = signer.headers(method: "POST", path: path, body: body, timestamp: base)
      return SignedRequest(method: "POST", path: path, headers: headers, body: body)
    }
    let verifyStart = DispatchTime.now().uptimeNanoseconds
    for request in requests {
      do { try await verifier.verify(request, secrets: [secret]) } catch { sink &+= 1 }
    }
    verifyTimes.append(
      Double(DispatchTime.now().uptimeNanoseconds - verifyStart) / Double(iterations))
  }
  print(size, Int(median(signTimes)), Int(median(verifyTimes)), sink % 2)
}
