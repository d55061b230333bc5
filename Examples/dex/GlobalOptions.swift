import ArgumentParser
import DexKit
import DexTerminal
import Foundation
import Logging

/// Routes library logs to standard error, quiet unless `DEX_LOG_LEVEL` asks for more, so that
/// standard output carries only cards and JSON.
enum LogSetup {
  static let once: Void = {
    let level =
      ProcessInfo.processInfo.environment["DEX_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
      ?? .critical
    LoggingSystem.bootstrap { label in
      var handler = TerminalLogHandler(wrapping: StreamLogHandler.standardError(label: label))
      handler.logLevel = level
      return handler
    }
  }()
}

/// Options every subcommand shares: where the store is and which backend to use.
struct GlobalOptions: ParsableArguments {
  @Option(
    name: .long, help: "The store directory (default: $DEX_STORE, else the platform's Dex.store).")
  var store: String?

  @Option(name: .long, help: "Backend base URL (default: $DEX_CLOUD_BASE_URL).")
  var backend: String?

  @Option(
    name: .long,
    help:
      "Bootstrap key for the backend (default: $DEX_CLOUD_BOOTSTRAP_KEY). Prefer the environment: flags show up in process listings."
  )
  var bootstrapKey: String?

  @Option(
    name: .long,
    help:
      "A JSON config file with any of: store, backend, bootstrapKey (default: ~/.config/dex/config.json)."
  )
  var config: String?

  /// The settings after merging flags, environment and the config file (in that priority).
  func resolved(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> DexSettings {
    LogSetup.once
    let file = try DexSettings.File.load(path: config, environment: environment)
    let store = store ?? environment["DEX_STORE"] ?? file?.store
    // The SDK's names (DexCloudConfiguration.fromEnvironment reads the same ones).
    let backend =
      backend ?? environment[DexCloudConfiguration.baseURLVariable] ?? file?.backend
    let key =
      bootstrapKey ?? environment[DexCloudConfiguration.bootstrapKeyVariable]
      ?? file?.bootstrapKey
    return DexSettings(
      storeDirectory: store.map {
        URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath, isDirectory: true)
      }
        ?? DexStore.defaultDirectory,
      backendURL: try backend.map(DexSettings.backendURL(from:)),
      bootstrapKey: key)
  }
}

/// Resolved configuration for one run.
struct DexSettings {
  var storeDirectory: URL
  var backendURL: URL?
  var bootstrapKey: String?

  /// The optional config file.
  struct File: Decodable {
    var store: String?
    var backend: String?
    var bootstrapKey: String?

    /// The largest config file read (a few settings fit many times over).
    static let maximumConfigByteCount = 64 << 10

    static func load(path: String?, environment: [String: String]) throws -> File? {
      let explicit = path != nil
      let resolved = path ?? environment["HOME"].map { "\($0)/.config/dex/config.json" }
      guard let resolved else { return nil }
      let url = URL(fileURLWithPath: (resolved as NSString).expandingTildeInPath)
      guard FileManager.default.fileExists(atPath: url.path) else {
        if explicit { throw DexCLIError.usage("Config file not found: \(url.path)") }
        return nil
      }
      let data: Data
      do {
        data = try LocalFile.read(url.path, maximumByteCount: maximumConfigByteCount)
      } catch {
        throw DexCLIError.usage(error.description)
      }
      do {
        return try JSONDecoder().decode(File.self, from: data)
      } catch {
        throw DexCLIError.usage(
          "Config file \(url.path) is not valid JSON: \(error.localizedDescription)")
      }
    }
  }

  static func backendURL(from text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
      url.host != nil
    else { throw DexCLIError.usage("The backend URL \"\(text)\" is not an http(s) URL.") }
    return url
  }

  func openStore() throws -> DexStore {
    do {
      return try DexStore(configuration: .init(directory: storeDirectory))
    } catch {
      throw DexCLIError.store(
        "Cannot open the store at \(storeDirectory.path): \(error.localizedDescription)")
    }
  }

  /// The cloud pass, or `nil` to scan offline.
  func visionService(offline: Bool) throws -> (any DexVisionServicing)? {
    guard !offline, let backendURL else { return nil }
    guard let key = bootstrapKey.flatMap(SigningSecret.init) else {
      throw DexCLIError.usage(
        "A backend is configured but no bootstrap key: set DEX_CLOUD_BOOTSTRAP_KEY.")
    }
    let isLoopback = ["127.0.0.1", "localhost", "::1"].contains(backendURL.host ?? "")
    let configuration = DexCloudConfiguration(
      baseURL: backendURL, bootstrapKey: key, allowsInsecureHTTP: isLoopback)
    return DexVisionService(client: ApiClient(configuration: configuration))
  }
}

/// Errors with the exit codes the README documents.
enum DexCLIError: Error, CustomStringConvertible {
  case usage(String)
  case store(String)
  case notFound(String)
  case unreadable(String)
  case scanFailed(String)

  var description: String {
    switch self {
    case .usage(let message), .store(let message), .notFound(let message),
      .unreadable(let message), .scanFailed(let message):
      message
    }
  }

  var exitCode: ExitCode {
    switch self {
    case .usage: ExitCode(64)
    case .notFound: ExitCode(66)
    case .unreadable: ExitCode(65)
    case .store: ExitCode(74)
    case .scanFailed: ExitCode(69)
    }
  }
}

/// Prints an error to standard error and exits with its code.
func fail(_ error: any Error) -> ExitCode {
  let cliError = error as? DexCLIError ?? .store(String(describing: error))
  // Messages can quote archive member names, file names or server text: never raw to the
  // terminal, and a line break in them cannot start a line that passes for another message.
  let message = TerminalText.safe(cliError.description, keepingNewlines: true)
    .split(separator: "\n", omittingEmptySubsequences: false)
    .reversed().drop { $0.isEmpty }.reversed()  // no trailing empty lines
    .joined(separator: "\n  ")
  try? FileHandle.standardError.write(contentsOf: Data("dex: \(message)\n".utf8))
  return cliError.exitCode
}

/// Runs a command body, turning any error into a message on standard error and the exit code
/// its kind documents (store errors for anything unexpected).
func reportingErrors(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let code as ExitCode {
    throw code
  } catch {
    throw fail(error)
  }
}

extension GlobalOptions {
  /// Runs a command's body on the configured store, turning every failure into the CLI's
  /// message and exit code: the scaffolding every browsing command shares.
  func withStore(_ body: (DexStore) async throws -> Void) async throws {
    try await reportingErrors { try await body(try resolved().openStore()) }
  }
}
