import Foundation

/// Finds an executable of this package built beside the running tests.
///
/// Why it exists: the command-line tests and the proxy's `dex ask` tests both run the built
/// `dex` as a child process, the way a user does.
public enum BuiltExecutable {
  /// The folders a test bundle's siblings live in: the running executable's (Linux) and each
  /// loaded `.xctest` bundle's.
  public static var folders: [URL] {
    var folders: [URL] = []
    #if os(Linux)
      if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        folders.append(URL(fileURLWithPath: path).deletingLastPathComponent())
      }
    #endif
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      folders.append(bundle.bundleURL.deletingLastPathComponent())
    }
    return folders
  }

  /// The executable `name` beside the tests, or `nil` when it is not built there.
  public static func named(_ name: String) -> URL? {
    folders.map { $0.appendingPathComponent(name) }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }
}
