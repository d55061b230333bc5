extension EfficientNetLite0 {
  /// How the network computes its 1×1 convolutions, nearly nine tenths of its multiply-adds.
  ///
  /// It exists because the fastest exact arithmetic depends on the processor: on arm64 (NEON has
  /// fused multiply-add in its baseline) 32-bit floats are fastest, while SwiftPM's x86-64
  /// baseline (SSE2) has no fused multiply-add but does have a 16-bit integer multiply-add
  /// instruction with twice the throughput. Both give the same ranked labels; the logits of the
  /// bundled weights stay within 0.02 of a float64 reference either way (the tests check both).
  package enum Arithmetic: String, Sendable, Hashable, CaseIterable {
    /// 32-bit floats throughout: the reference arithmetic.
    case float32
    /// 1×1 convolutions in 16-bit integers with 32-bit accumulators: a block's input quantized
    /// per call (one scale per tensor, 13 bits), a projection's input (a ReLU6 output) with the
    /// fixed scale 6 / 4095, written so by the depthwise layer; weights per output channel with
    /// as many bits as a no-overflow proof allows (up to 15). The stem (the first, 3×3
    /// convolution) computes the same way on a quantized copy of the image. The depthwise
    /// convolutions and the classifier layer stay in floats.
    /// A projection multiplies only the channel pairs of its input that are nonzero (a ReLU6
    /// output is mostly zeros), which changes no bit of the result. Each block runs a band of
    /// rows at a time so that its expanded tensor stays in cache (on several threads, the large
    /// early blocks give each thread a range of rows).
    case int16

    /// The faster arithmetic for the processor this code was compiled for: ``int16`` on x86-64,
    /// ``float32`` elsewhere.
    package static var automatic: Arithmetic {
      #if arch(x86_64)
        .int16
      #else
        .float32
      #endif
    }
  }
}
