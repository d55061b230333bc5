import Foundation

/// The call budgets `dex-proxy` keeps, beyond the rate limits: each one a count per key per UTC
/// day (or hour) in a ``DailyQuotaStore``, shared by every instance when that store is
/// PostgreSQL.
///
/// - Per subject (`DEX_PROXY_DAILY_QUOTA`): what one install may spend.
/// - Per client address (`DEX_PROXY_ADDRESS_DAILY_QUOTA`, an IPv6 address counted by its /64):
///   what one network may spend however many subjects it mints.
/// - Global (`DEX_PROXY_DAILY_BUDGET`): what all clients together may spend, the ceiling on the
///   model bill whatever the attacker's addresses.
/// - Sessions per address per hour (`DEX_PROXY_ADDRESS_HOURLY_SESSIONS`): how fast one network may
///   mint sessions (and subjects) at all.
///
/// A call counts against every budget that applies; when one is spent, the ones already counted
/// for that call are given back and the call is refused.
struct ProxyBudgets: Sendable {
  /// One count to take for a call.
  struct Charge: Sendable {
    var key: String
    var limit: Int
    var hourly: Bool
    /// The refusal's code and message.
    var code: String
    var message: String
  }

  var store: any DailyQuotaStore
  var perSubject: Int?
  var perAddress: Int?
  var global: Int?
  var sessionsPerAddressPerHour: Int?

  var isEmpty: Bool {
    perSubject == nil && perAddress == nil && global == nil && sessionsPerAddressPerHour == nil
  }

  /// The counts one `/vision` call takes.
  func visionCharges(subject: String, address: String) -> [Charge] {
    var charges: [Charge] = []
    if let perSubject {
      charges.append(
        Charge(
          key: "subject:\(subject)", limit: perSubject, hourly: false, code: "quota_exceeded",
          message: "The daily quota of \(perSubject) calls is spent."))
    }
    if let perAddress {
      charges.append(
        Charge(
          key: "address:\(address)", limit: perAddress, hourly: false,
          code: "address_quota_exceeded",
          message: "The daily quota of \(perAddress) calls for this network is spent."))
    }
    if let global {
      charges.append(
        Charge(
          key: "global", limit: global, hourly: false, code: "daily_budget_exhausted",
          message: "The service's daily budget is spent; retry tomorrow."))
    }
    return charges
  }

  /// The count one issued session takes.
  func sessionCharges(address: String) -> [Charge] {
    guard let sessionsPerAddressPerHour else { return [] }
    return [
      Charge(
        key: "sessions:\(address)", limit: sessionsPerAddressPerHour, hourly: true,
        code: "session_limit_exceeded",
        message: "Too many sessions from this network this hour.")
    ]
  }

  /// The key a charge is stored under on `date` (hourly ones carry their UTC hour).
  static func storedKey(_ charge: Charge, on date: Date) -> String {
    guard charge.hourly else { return charge.key }
    let hour = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400 / 3600
    return "\(charge.key)@\(hour)"
  }

  /// The outcome of taking a call's counts.
  enum Outcome: Sendable {
    /// Every count was taken.
    case counted
    /// `charge` was spent; nothing stays counted.
    case spent(Charge, retryAfterSeconds: Int)
    /// The store did not answer; nothing stays counted.
    case unavailable
  }

  /// Takes every count in `charges`, or none.
  func spend(_ charges: [Charge], on date: Date) async -> Outcome {
    var taken: [Charge] = []
    for charge in charges {
      let fits: Bool
      do {
        fits = try await store.consume(
          subject: Self.storedKey(charge, on: date), on: date, limit: charge.limit)
      } catch {
        await refund(taken, on: date)
        return .unavailable
      }
      guard fits else {
        await refund(taken, on: date)
        let seconds =
          charge.hourly
          ? max(1, 3600 - Int(date.timeIntervalSince1970.rounded(.down)) % 3600)
          : DailyQuota.secondsUntilNextDay(from: date)
        return .spent(charge, retryAfterSeconds: seconds)
      }
      taken.append(charge)
    }
    return .counted
  }

  /// Gives back the counts in `charges` taken on `date` (the call failed upstream); a store that
  /// cannot answer leaves them counted.
  @discardableResult
  func refund(_ charges: [Charge], on date: Date) async -> Bool {
    var complete = true
    for charge in charges {
      do {
        try await store.refund(subject: Self.storedKey(charge, on: date), on: date)
      } catch {
        complete = false
      }
    }
    return complete
  }
}
