#if os(Linux) && Tesseract
  import CDexTextShim

  /// The cancel flag and deadline of one recognition, shared by the task that waits for it (which
  /// cancels) and the thread that runs Tesseract (whose monitor polls it between words).
  ///
  /// The flags live in C atomics (`dex_ocr_job`), so cancelling from any thread is safe; the
  /// pointer is freed only when the last reference goes, after the recognition has returned.
  final class TesseractJob: @unchecked Sendable {
    let handle: OpaquePointer

    /// A job whose deadline is `timeoutMilliseconds` from now; `nil` when out of memory.
    init?(timeoutMilliseconds: Int64) {
      guard let handle = dex_ocr_job_create(timeoutMilliseconds) else { return nil }
      self.handle = handle
    }

    /// Asks the recognition to stop at Tesseract's next check.
    func cancel() {
      dex_ocr_job_cancel(handle)
    }

    deinit {
      dex_ocr_job_destroy(handle)
    }
  }
#endif
