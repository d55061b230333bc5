import DexProxy
import Foundation
import HTTPSupport
import Hummingbird
import Logging

// dex-proxy: reads its configuration from the environment (see Examples/DexProxy/README.md),
// serves until SIGTERM or SIGINT, then finishes in-flight requests and exits.

LoggingSystem.bootstrap { label in
  var handler = StreamLogHandler.standardError(label: label)
  handler.logLevel =
    ProcessInfo.processInfo.environment["DEX_PROXY_LOG_LEVEL"].flatMap {
      Logger.Level(rawValue: $0)
    }
    ?? .info
  return handler
}
let logger = Logger(label: "dexkit.proxy")

let configuration: ProxyConfiguration
do {
  configuration = try ProxyConfiguration.fromEnvironment()
} catch {
  // One line naming the variable and the problem, never a value.
  try? FileHandle.standardError.write(
    contentsOf:
      Data("dex-proxy: invalid configuration: \(error.description)\n".utf8))
  exit(64)
}

guard #available(macOS 14, iOS 17, tvOS 17, *) else {
  logger.critical("dex-proxy needs macOS 14 or later (Hummingbird 2).")
  exit(69)
}
do {
  try await ServerSetup.run(
    DexProxyApplication.make(configuration: configuration, logger: logger))
} catch {
  logger.critical("dex-proxy stopped", metadata: ["error": "\(type(of: error))"])
  exit(1)
}
