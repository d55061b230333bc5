import Foundation

/// Parses the two header values the client reads for timing: `Date` and `Retry-After`.
enum HTTPDate {
  /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), also the RFC 850 and asctime forms.
  static func parse(_ text: String) -> Date? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard trimmed.utf8.count <= 64 else { return nil }
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz",
      "EEE MMM d HH:mm:ss yyyy",
    ] {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "GMT")
      formatter.dateFormat = format
      if let date = formatter.date(from: trimmed) { return date }
    }
    return nil
  }

  /// The IMF-fixdate for `date`, as a server sends in `Date`.
  static func format(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }

  /// `Retry-After` as a wait from `now`: delta-seconds or an HTTP date; `nil` if unreadable.
  static func retryAfter(_ text: String, now: Date) -> Duration? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty, trimmed.utf8.count <= 10,
      trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let seconds = Int64(trimmed)
    {
      return .seconds(seconds)
    }
    guard let date = parse(trimmed) else { return nil }
    let interval = max(0, date.timeIntervalSince(now))
    return .milliseconds(Int64(interval * 1000))
  }
}
