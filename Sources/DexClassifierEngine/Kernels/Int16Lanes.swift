#if arch(x86_64)
  internal import _Builtin_intrinsics.intel
#endif

/// Eight 16-bit integers in one 128-bit register, with the few operations the quantized
/// convolutions need.
///
/// On x86-64 every operation is one SSE2 instruction through the toolchain's own intrinsics
/// module, so the kernels are as fast in unoptimised debug builds (what `swift test` runs) as the
/// scalar float kernels, and release builds get exactly `pmaddwd` / `paddd` with no reliance on
/// the optimiser recognising a pattern. Elsewhere (arm64) the same operations are written with
/// the standard library's SIMD types, which the optimiser lowers to NEON.
struct Int16Lanes {
  #if arch(x86_64)
    /// The register, as the intrinsics see it.
    var raw: __m128i

    @inline(__always) init(raw: __m128i) { self.raw = raw }

    /// The same 32-bit pair `(low, high)` in all four 32-bit lanes.
    @inline(__always) init(repeatingPair pair: UInt32) {
      raw = _mm_set1_epi32(Int32(bitPattern: pair))
    }

    /// Loads eight values from `pointer` (no alignment required).
    @inline(__always) init(loading pointer: UnsafeRawPointer) {
      raw = _mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i.self))
    }

    /// Loads eight values from `pointer`, which must be 16-byte aligned (the load can then be
    /// an operand of the instruction that uses it).
    @inline(__always) init(aligned pointer: UnsafeRawPointer) {
      raw = _mm_load_si128(pointer.assumingMemoryBound(to: __m128i.self))
    }

    /// `[a0·b0 + a1·b1, a2·b2 + a3·b3, …]`: four 32-bit sums of adjacent products (`pmaddwd`).
    @inline(__always) func multipliedPairwise(by other: Int16Lanes) -> Int32Lanes {
      Int32Lanes(raw: _mm_madd_epi16(raw, other.raw))
    }

    /// Rounds four floats from `a` and four from `b` to the nearest integer and narrows them with
    /// saturation to 16 bits: `[a0, a1, a2, a3, b0, b1, b2, b3]`.
    @inline(__always) init(rounding a: Float4Lanes, _ b: Float4Lanes) {
      raw = _mm_packs_epi32(_mm_cvtps_epi32(a.raw), _mm_cvtps_epi32(b.raw))
    }

    /// Stores the eight values at `pointer` (no alignment required).
    @inline(__always) func store(to pointer: UnsafeMutableRawPointer) {
      _mm_storeu_si128(pointer.assumingMemoryBound(to: __m128i.self), raw)
    }

    /// `[a0, b0, a1, b1, a2, b2, a3, b3]` of `self` (a) and `other` (b): the low halves
    /// interleaved (`punpcklwd`).
    @inline(__always) func interleavingLow(with other: Int16Lanes) -> Int16Lanes {
      Int16Lanes(raw: _mm_unpacklo_epi16(raw, other.raw))
    }

    /// `[a4, b4, a5, b5, a6, b6, a7, b7]`: the high halves interleaved (`punpckhwd`).
    @inline(__always) func interleavingHigh(with other: Int16Lanes) -> Int16Lanes {
      Int16Lanes(raw: _mm_unpackhi_epi16(raw, other.raw))
    }
  #else
    /// The register.
    var raw: SIMD8<Int16>

    @inline(__always) init(raw: SIMD8<Int16>) { self.raw = raw }

    @inline(__always) init(repeatingPair pair: UInt32) {
      raw = unsafeBitCast(SIMD4<UInt32>(repeating: pair), to: SIMD8<Int16>.self)
    }

    @inline(__always) init(loading pointer: UnsafeRawPointer) {
      raw = pointer.loadUnaligned(as: SIMD8<Int16>.self)
    }

    @inline(__always) init(aligned pointer: UnsafeRawPointer) {
      raw = pointer.load(as: SIMD8<Int16>.self)
    }

    @inline(__always) func multipliedPairwise(by other: Int16Lanes) -> Int32Lanes {
      let product =
        SIMD8<Int32>(truncatingIfNeeded: raw) &* SIMD8<Int32>(truncatingIfNeeded: other.raw)
      return Int32Lanes(raw: product.evenHalf &+ product.oddHalf)
    }

    @inline(__always) init(rounding a: Float4Lanes, _ b: Float4Lanes) {
      raw = SIMD8<Int16>(
        truncatingIfNeeded: SIMD8(
          lowHalf: Self.saturatingInt32(a.raw), highHalf: Self.saturatingInt32(b.raw)))
    }

    /// Rounds to nearest (ties to even) and clamps to the 16-bit range; NaN becomes 0 (the
    /// conversion to integers would trap on it).
    @inline(__always) static func saturatingInt32(_ v: SIMD4<Float>) -> SIMD4<Int32> {
      let finite = v.replacing(with: 0, where: .!(v .== v))
      let clamped = finite.rounded(.toNearestOrEven).clamped(
        lowerBound: SIMD4(repeating: -32768), upperBound: SIMD4(repeating: 32767))
      return SIMD4<Int32>(clamped)
    }

    @inline(__always) func store(to pointer: UnsafeMutableRawPointer) {
      pointer.storeBytes(of: raw, as: SIMD8<Int16>.self)
    }

    @inline(__always) func interleavingLow(with other: Int16Lanes) -> Int16Lanes {
      Int16Lanes(
        raw: SIMD8(
          raw[0], other.raw[0], raw[1], other.raw[1], raw[2], other.raw[2], raw[3], other.raw[3]))
    }

    @inline(__always) func interleavingHigh(with other: Int16Lanes) -> Int16Lanes {
      Int16Lanes(
        raw: SIMD8(
          raw[4], other.raw[4], raw[5], other.raw[5], raw[6], other.raw[6], raw[7], other.raw[7]))
    }
  #endif
}

/// Four 32-bit integers in one 128-bit register: the quantized convolutions' accumulators.
struct Int32Lanes {
  #if arch(x86_64)
    /// The register, as the intrinsics see it.
    var raw: __m128i

    @inline(__always) init(raw: __m128i) { self.raw = raw }

    /// All zero.
    @inline(__always) init() { raw = _mm_setzero_si128() }

    /// `self += other`, wrapping (the kernels prove at load time that it never wraps).
    @inline(__always) static func &+= (lhs: inout Int32Lanes, rhs: Int32Lanes) {
      lhs.raw = _mm_add_epi32(lhs.raw, rhs.raw)
    }

    /// The four values converted to `Float`.
    @inline(__always) var floats: Float4Lanes { Float4Lanes(raw: _mm_cvtepi32_ps(raw)) }
  #else
    /// The register.
    var raw: SIMD4<Int32>

    @inline(__always) init(raw: SIMD4<Int32>) { self.raw = raw }
    @inline(__always) init() { raw = .zero }
    @inline(__always) static func &+= (lhs: inout Int32Lanes, rhs: Int32Lanes) {
      lhs.raw &+= rhs.raw
    }
    @inline(__always) var floats: Float4Lanes { Float4Lanes(raw: SIMD4<Float>(raw)) }
  #endif
}

/// Four floats in one 128-bit register: the quantized convolutions' quantize and dequantize
/// steps.
struct Float4Lanes {
  #if arch(x86_64)
    /// The register, as the intrinsics see it.
    var raw: __m128

    @inline(__always) init(raw: __m128) { self.raw = raw }

    /// Loads four floats from `pointer` (no alignment required).
    @inline(__always) init(loading pointer: UnsafePointer<Float>) { raw = _mm_loadu_ps(pointer) }

    /// Loads four floats from `pointer`, which must be 16-byte aligned (the load can then be an
    /// operand of the instruction that uses it).
    @inline(__always) init(aligned pointer: UnsafePointer<Float>) { raw = _mm_load_ps(pointer) }

    /// `value` in all four lanes.
    @inline(__always) init(repeating value: Float) { raw = _mm_set1_ps(value) }

    /// `[a, b, c, d]`.
    @inline(__always) init(_ a: Float, _ b: Float, _ c: Float, _ d: Float) {
      raw = _mm_setr_ps(a, b, c, d)
    }

    @inline(__always) static func * (lhs: Float4Lanes, rhs: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: _mm_mul_ps(lhs.raw, rhs.raw))
    }

    @inline(__always) static func + (lhs: Float4Lanes, rhs: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: _mm_add_ps(lhs.raw, rhs.raw))
    }

    /// Lane-wise `min(max(self, low), high)`.
    @inline(__always) func clamped(_ low: Float4Lanes, _ high: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: _mm_min_ps(_mm_max_ps(raw, low.raw), high.raw))
    }

    /// Lane-wise `max(|self|, other)`.
    @inline(__always) func maxMagnitude(_ other: Float4Lanes) -> Float4Lanes {
      let magnitude = _mm_andnot_ps(_mm_set1_ps(-0.0), raw)
      return Float4Lanes(raw: _mm_max_ps(magnitude, other.raw))
    }

    /// The largest lane.
    @inline(__always) var maxElement: Float {
      let a = _mm_max_ps(raw, _mm_movehl_ps(raw, raw))
      let pair = _mm_unpacklo_ps(a, a)
      return _mm_cvtss_f32(_mm_max_ss(a, _mm_movehl_ps(pair, pair)))
    }

    /// Stores the four floats at `pointer` (no alignment required).
    @inline(__always) func store(to pointer: UnsafeMutablePointer<Float>) {
      _mm_storeu_ps(pointer, raw)
    }
  #else
    /// The register.
    var raw: SIMD4<Float>

    @inline(__always) init(raw: SIMD4<Float>) { self.raw = raw }
    @inline(__always) init(loading pointer: UnsafePointer<Float>) {
      raw = UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
    }
    @inline(__always) init(aligned pointer: UnsafePointer<Float>) {
      raw = UnsafeRawPointer(pointer).load(as: SIMD4<Float>.self)
    }
    @inline(__always) init(repeating value: Float) { raw = SIMD4(repeating: value) }
    @inline(__always) init(_ a: Float, _ b: Float, _ c: Float, _ d: Float) {
      raw = SIMD4(a, b, c, d)
    }
    @inline(__always) static func * (lhs: Float4Lanes, rhs: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: lhs.raw * rhs.raw)
    }
    @inline(__always) static func + (lhs: Float4Lanes, rhs: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: lhs.raw + rhs.raw)
    }
    @inline(__always) func clamped(_ low: Float4Lanes, _ high: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: raw.clamped(lowerBound: low.raw, upperBound: high.raw))
    }
    @inline(__always) func maxMagnitude(_ other: Float4Lanes) -> Float4Lanes {
      Float4Lanes(raw: pointwiseMax(pointwiseMax(raw, -raw), other.raw))
    }
    @inline(__always) var maxElement: Float { raw.max() }
    @inline(__always) func store(to pointer: UnsafeMutablePointer<Float>) {
      UnsafeMutableRawPointer(pointer).storeBytes(of: raw, as: SIMD4<Float>.self)
    }
  #endif
}
