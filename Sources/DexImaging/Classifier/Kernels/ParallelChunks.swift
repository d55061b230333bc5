import Dispatch

/// Splits `0..<count` into `threads` contiguous chunks (each a multiple of `multiple` long, except
/// the last) and runs `body` on each, in parallel when `threads > 1`; returns when all are done.
///
/// The kernels use it to spread one inference over several cores. Chunks write disjoint output
/// ranges and only read shared, unchanging inputs, and `concurrentPerform` joins before
/// returning, which is why handing the non-`Sendable` body to worker threads is sound.
func forEachChunk(of count: Int, threads: Int, multiple: Int, _ body: (Range<Int>) -> Void) {
  let step = max(multiple, 1)
  let threads = min(max(threads, 1), max(count / step, 1))
  guard threads > 1 else {
    body(0..<count)
    return
  }
  let chunk = ((count + threads - 1) / threads + step - 1) / step * step
  withoutActuallyEscaping(body) { escapable in
    let work = ChunkBody(run: escapable)
    DispatchQueue.concurrentPerform(iterations: threads) { index in
      let start = min(index * chunk, count)
      let end = min(start + chunk, count)
      if start < end { work.run(start..<end) }
    }
  }
}

/// Carries a chunk body to `concurrentPerform`'s worker threads (see ``forEachChunk``).
private struct ChunkBody: @unchecked Sendable {
  let run: (Range<Int>) -> Void
}
