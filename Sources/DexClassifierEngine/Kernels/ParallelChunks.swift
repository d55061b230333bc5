import Dispatch

/// Splits `0..<count` into `threads` contiguous chunks (each a multiple of `multiple` long, except
/// the last) and runs `body` on each, in parallel when `threads > 1`; returns when all are done.
///
/// The kernels use it to spread one inference over several cores. Chunks write disjoint output
/// ranges and only read shared, unchanging inputs, and `concurrentPerform` joins before
/// returning, which is why handing the non-`Sendable` body to worker threads is sound.
func forEachChunk(of count: Int, threads: Int, multiple: Int, _ body: (Range<Int>) -> Void) {
  forEachChunk(of: count, threads: threads, multiple: multiple) { _, range in body(range) }
}

/// The number of chunks `forEachChunk` splits `0..<count` into: `threads`, fewer when there are
/// not that many multiples of `multiple`.
func chunkCount(of count: Int, threads: Int, multiple: Int) -> Int {
  min(max(threads, 1), max(count / max(multiple, 1), 1))
}

/// `forEachChunk` that also hands `body` the chunk's index (below `chunkCount`), so that each
/// chunk can work in buffers of its own.
func forEachChunk(
  of count: Int, threads: Int, multiple: Int, _ body: (Int, Range<Int>) -> Void
) {
  let step = max(multiple, 1)
  let threads = chunkCount(of: count, threads: threads, multiple: step)
  guard threads > 1 else {
    body(0, 0..<count)
    return
  }
  let chunk = ((count + threads - 1) / threads + step - 1) / step * step
  withoutActuallyEscaping(body) { escapable in
    let work = ChunkBody(run: escapable)
    DispatchQueue.concurrentPerform(iterations: threads) { index in
      let start = min(index * chunk, count)
      let end = min(start + chunk, count)
      if start < end { work.run(index, start..<end) }
    }
  }
}

/// Carries a chunk body to `concurrentPerform`'s worker threads (see ``forEachChunk``).
private struct ChunkBody: @unchecked Sendable {
  let run: (Int, Range<Int>) -> Void
}
