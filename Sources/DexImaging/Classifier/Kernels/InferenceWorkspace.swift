import Foundation

/// The buffers of one forward pass: four activation tensors and the quantized-input scratch.
///
/// A forward pass touches about 20 MB of activations; allocating them fresh each time makes the
/// kernel zero every page again (page faults were about 5 % of a pass), so ``WorkspacePool`` keeps
/// one set warm between calls.
final class InferenceWorkspace {
  /// Four buffers of the network's largest activation tensor.
  let activations: [UnsafeMutablePointer<Float>]
  /// Scratch for the quantized input of an int16 1×1 convolution.
  let scratch: UnsafeMutablePointer<Int16>

  init(activationCount: Int, scratchCount: Int) {
    activations = (0..<4).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: activationCount)
    }
    scratch = UnsafeMutablePointer<Int16>.allocate(capacity: max(scratchCount, 1))
  }

  deinit {
    for buffer in activations { buffer.deallocate() }
    scratch.deallocate()
  }
}

/// Hands out ``InferenceWorkspace``s and keeps a bounded number of idle ones for the next call.
///
/// Concurrent forward passes each get their own workspace; at most ``retainedCount`` idle ones
/// are kept (about 20 MB each), the rest are freed when their pass ends.
final class WorkspacePool: @unchecked Sendable {
  private let lock = NSLock()
  private var idle: [InferenceWorkspace] = []
  private let activationCount: Int
  private let scratchCount: Int
  /// How many idle workspaces are kept between calls.
  let retainedCount: Int

  init(activationCount: Int, scratchCount: Int, retainedCount: Int = 1) {
    self.activationCount = activationCount
    self.scratchCount = scratchCount
    self.retainedCount = retainedCount
  }

  /// Runs `body` with a workspace no other call is using.
  func withWorkspace<R, E: Error>(_ body: (InferenceWorkspace) throws(E) -> R) throws(E) -> R {
    let workspace =
      lock.withLock { idle.popLast() }
      ?? InferenceWorkspace(activationCount: activationCount, scratchCount: scratchCount)
    defer {
      lock.withLock {
        if idle.count < retainedCount { idle.append(workspace) }
      }
    }
    return try body(workspace)
  }
}
