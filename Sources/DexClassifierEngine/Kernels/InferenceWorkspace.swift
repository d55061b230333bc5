import Foundation

/// The buffers of one forward pass: four activation tensors, the quantized-input scratch and,
/// for blocks that run band by band, per band worker a band of the expanded tensor and the rows
/// of the block's input that band adds, quantized.
///
/// A forward pass touches about 20 MB of activations; allocating them fresh each time makes the
/// kernel zero every page again (page faults were about 5 % of a pass), so ``WorkspacePool`` keeps
/// one set warm between calls.
final class InferenceWorkspace {
  /// Four buffers of the network's largest activation tensor.
  let activations: [UnsafeMutablePointer<Float>]
  /// Scratch for the quantized input of an int16 1×1 convolution.
  let scratch: UnsafeMutablePointer<Int16>
  /// The number of floats in each band buffer.
  let bandCount: Int
  private let sizes: Sizes
  /// Per band worker: a band of rows of an expanded tensor (see `MBConvBlock.applyInBands`).
  private(set) var bands: [UnsafeMutablePointer<Float>] = []
  /// Per band worker: the rows of a banded block's input that a band adds, quantized.
  private(set) var blockInputs: [UnsafeMutablePointer<Int16>] = []

  init(sizes: Sizes) {
    self.sizes = sizes
    activations = (0..<4).map { _ in
      UnsafeMutablePointer<Float>.allocate(capacity: sizes.activations)
    }
    scratch = UnsafeMutablePointer<Int16>.allocate(capacity: max(sizes.scratch, 1))
    bandCount = sizes.band
    reserveBandWorkers(1)
  }

  /// Makes sure ``bands`` and ``blockInputs`` have at least `count` buffers each. Call it before
  /// the workers start; the buffers stay until the workspace goes.
  func reserveBandWorkers(_ count: Int) {
    while bands.count < count {
      bands.append(UnsafeMutablePointer<Float>.allocate(capacity: max(sizes.band, 1)))
      blockInputs.append(UnsafeMutablePointer<Int16>.allocate(capacity: max(sizes.blockInput, 1)))
    }
  }

  deinit {
    for buffer in activations { buffer.deallocate() }
    scratch.deallocate()
    for buffer in bands { buffer.deallocate() }
    for buffer in blockInputs { buffer.deallocate() }
  }

  /// How many values each buffer holds.
  struct Sizes: Sendable {
    /// Floats per activation tensor.
    var activations = 0
    /// `Int16`s of quantized-input scratch.
    var scratch = 0
    /// Floats in each band buffer.
    var band = 0
    /// `Int16`s of the rows a band adds to a banded block's quantized input.
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
