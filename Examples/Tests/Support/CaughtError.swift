/// Runs `body` and returns the error it threw when that error is an `E`; `nil` when it
/// succeeded or threw something else, so a test can `#expect` on the typed error's fields.
public func caughtError<E: Error>(
  _ type: E.Type, _ body: () async throws -> Void
) async -> E? {
  do {
    try await body()
    return nil
  } catch let error as E {
    return error
  } catch {
    return nil
  }
}
