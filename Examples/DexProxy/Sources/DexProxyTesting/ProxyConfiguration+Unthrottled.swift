import DexCloud
import DexCloudServer
import DexProxy
import Foundation

extension ProxyConfiguration {
  /// A proxy for load runs and benchmarks: on 127.0.0.1 (a port the kernel picks) in front of
  /// a stub upstream at `upstreamURL` (model `stub`), 8 MiB bodies, a rate limit no run reaches
  /// and the daily and hourly budgets off (a run makes thousands of calls and may mint many
  /// sessions; they are not what is measured).
  ///
  /// It exists so that every benchmark measures the same proxy; never serve real traffic with it.
  public static func unthrottled(
    bootstrapKey: SigningSecret, serverKey: ServerKey, upstreamURL: URL
  ) -> ProxyConfiguration {
    ProxyConfiguration(
      bootstrapKeys: [bootstrapKey], keyring: ServerKeyring(current: serverKey),
      upstream: UpstreamConfiguration(
        baseURL: upstreamURL, model: "stub", apiKey: APIKey("sk-benchmark-stub")),
      host: "127.0.0.1", port: 0, maximumBodyBytes: 8 << 20,
      rateLimit: RateLimit(burst: 10_000, refillPerSecond: 10_000),
      dailyQuota: nil, addressDailyQuota: nil, dailyBudget: nil, sessionsPerAddressPerHour: nil)
  }
}
