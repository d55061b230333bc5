extension LogCapture {
  /// The `Request handled` lines so far: one per request a server answered (HTTPSupport's
  /// `RequestLogMiddleware`).
  public var handledRequests: [String] { lines.filter { $0.contains(": Request handled ") } }

  /// How many `Request handled` lines are for `route` answered with `status` and `outcome`.
  public func handledRequests(route: String, status: Int, outcome: String) -> Int {
    handledRequests.filter {
      $0.contains(" route=\(route) ") && $0.contains(" outcome=\(outcome) ")
        && $0.hasSuffix(" status=\(status)")
    }.count
  }

  /// How many `Request handled` lines are for `route`, whatever their status and outcome.
  public func handledRequests(route: String) -> Int {
    handledRequests.filter { $0.contains(" route=\(route) ") }.count
  }
}
