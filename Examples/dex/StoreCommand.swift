import ArgumentParser
import DexKit

/// A subcommand that works on the configured store: it implements ``run(on:)`` and inherits
/// `run()`, which resolves the settings, opens the store and turns every failure into the CLI's
/// message and exit code (``GlobalOptions/withStore(_:)``).
protocol StoreCommand: AsyncParsableCommand {
  /// Where the store is, and the rest of the shared options.
  var options: GlobalOptions { get }

  /// The command's work on the open store.
  func run(on store: DexStore) async throws
}

extension StoreCommand {
  func run() async throws {
    try await options.withStore(run(on:))
  }
}
