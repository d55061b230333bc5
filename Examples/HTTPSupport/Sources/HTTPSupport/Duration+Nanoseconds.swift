extension Duration {
  /// The duration in whole nanoseconds (saturating), for swift-metrics' timers and NIO's
  /// `TimeAmount`: both servers record and wait in these units.
  public var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    return whole &+ attoseconds / 1_000_000_000
  }
}
