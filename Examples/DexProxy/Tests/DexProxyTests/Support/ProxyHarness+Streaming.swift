import DexProxy

@available(macOS 14, iOS 17, tvOS 17, *)
extension ProxyHarness {
  /// The proxy's upstream deadline in a streaming test that tests something else.
  ///
  /// Why it exists: the deadline covers a whole stream, and the harness's 5 s was reached by
  /// streams (and by `dex` starting before them) on a loaded machine running the full suite,
  /// which answered 504 instead of what the test was about.
  static let streamingUpstreamTimeout = Duration.seconds(60)

  /// ``with(configure:_:)`` with the upstream deadline at ``streamingUpstreamTimeout`` (before
  /// `configure`, which may set another).
  static func streaming<T: Sendable>(
    configure: @Sendable (inout ProxyConfiguration) -> Void = { _ in },
    _ body: (ProxyHarness) async throws -> T
  ) async throws -> T {
    try await with(
      configure: {
        $0.upstream.timeout = streamingUpstreamTimeout
        configure(&$0)
      }, body)
  }
}
