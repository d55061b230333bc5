import Foundation

/// The buffers of one forward pass: four activation tensors, the quantized-input scratch and,
/// for blocks that run band by band, a band of the expanded tensor and the block's quantized
/// input.
///
/// A forward pass touches about 20 MB of activations; allocating them fresh each time makes the
/// kernel zero every page again (page faults were about 5 % of a pass), so ``WorkspacePool`` keeps
/// one set warm between calls.
final class InferenceWorkspace {
  /// Four buffers of the network's largest activation tensor.
  let activations: [UnsafeMutablePointer<Float>]
  /// Scratch for the quantized input of an int16 1×1 convolution.
  let scratch: UnsafeMutablePointer<Int16>
  /// A band of rows of an expanded tensor (see `MBConvBlock.applyInBands`).
  let band: UnsafeMutablePointer<Float>
  /// The number of floats in ``band``.
  let bandCount: Int
  /// A banded block's whole input, quantized.
  let blockInput: UnsafeMutablePointer<Int16>

  init(sizes: Sizes) {
    activations = (0..<4).map { _ in
      UnsafeMutablePointer<Float>.allocate(capacity: sizes.activations)
    }
    scratch = UnsafeMutablePointer<Int16>.allocate(capacity: max(sizes.scratch, 1))
    band = UnsafeMutablePointer<Float>.allocate(capacity: max(sizes.band, 1))
    bandCount = sizes.band
    blockInput = UnsafeMutablePointer<Int16>.allocate(capacity: max(sizes.blockInput, 1))
  }

  deinit {
    for buffer in activations { buffer.deallocate() }
    scratch.deallocate()
    band.deallocate()
    blockInput.deallocate()
  }

  /// How many values each buffer holds.
  struct Sizes: Sendable {
    /// Floats per activation tensor.
    var activations = 0
    /// `Int16`s of quantized-input scratch.
    var scratch = 0
    /// Floats of band.
    var band = 0
    /// `Int16`s of a banded block's quantized input.
    var blockInput = 0
  }
}

/// Hands out ``InferenceWorkspace``s and keeps a bounded number of idle ones for the next call.
///
/// Concurrent forward passes each get their own workspace; at most ``retainedCount`` idle ones
/// are kept (about 20 MB each), the rest are freed when their pass ends.
final class WorkspacePool: @unchecked Sendable {
  private let lock = NSLock()
  private var idle: [InferenceWorkspace] = []
  private let sizes: InferenceWorkspace.Sizes
  /// How many idle workspaces are kept between calls.
  let retainedCount: Int

  init(sizes: InferenceWorkspace.Sizes, retainedCount: Int = 1) {
    self.sizes = sizes
    self.retainedCount = retainedCount
  }

  /// Runs `body` with a workspace no other call is using.
  func withWorkspace<R, E: Error>(_ body: (InferenceWorkspace) throws(E) -> R) throws(E) -> R {
    let workspace =
      lock.withLock { idle.popLast() }
      ?? InferenceWorkspace(sizes: sizes)
    defer {
      lock.withLock {
        if idle.count < retainedCount { idle.append(workspace) }
      }
    }
    return try body(workspace)
  }
}
