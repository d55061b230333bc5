/// Why the network could not load its weights or run on an input.
///
/// DexImaging turns each case into the matching public `ClassifierError`; the engine keeps its
/// own type so that it depends on nothing above it.
package enum NetworkError: Error, Sendable, Equatable {
  /// A file exists but could not be read.
  case unreadableFile(path: String, reason: String)
  /// The weights manifest is not valid JSON of the expected format, or describes another model.
  case invalidManifest(String)
  /// The weights blob does not match its manifest (size, checksum, tensor shapes).
  case invalidWeights(String)
  /// The network input does not have the expected size or holds a non-finite value.
  case invalidInput(String)
  /// The compute backend failed to build or run the network (oneDNN refused a layer, or ran out
  /// of memory).
  case backendFailed(String)
  /// The task was cancelled mid-way.
  case cancelled
}
