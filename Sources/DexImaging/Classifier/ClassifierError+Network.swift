import DexClassifierEngine

extension ClassifierError {
  /// The public error for a failure inside the network engine.
  init(_ error: NetworkError) {
    switch error {
    case .unreadableFile(let path, let reason): self = .unreadableFile(path: path, reason: reason)
    case .invalidManifest(let reason): self = .invalidManifest(reason)
    case .invalidWeights(let reason): self = .invalidWeights(reason)
    case .invalidInput(let reason): self = .invalidInput(reason)
    case .backendFailed(let reason): self = .backendFailed(reason)
    case .cancelled: self = .cancelled
    }
  }
}
