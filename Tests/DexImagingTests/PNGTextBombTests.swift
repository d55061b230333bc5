#if os(Linux) && SystemImageCodecs
  import CDexImageShim
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// A PNG that carries 150 compressed text chunks, each inflating to 4 MiB (600 MiB in all,
  /// from a 4 MB file): libpng skips them unread, and never holds more than a few megabytes.
  @Suite(.offCooperativePool) struct PNGTextBombTests {
    static let chunkCount = 150
    static let inflatedBytes = 4 << 20

    /// `small-reference.png` with the text chunks inserted after its IHDR.
    static func bomb() throws -> Data {
      let png = [UInt8](try resource("small-reference.png"))
      let afterHeader = 8 + 25  // the signature, then IHDR: length, type, 13 bytes, CRC
      let text = pngChunk(
        "zTXt",
        Array("Comment".utf8) + [0, 0] + zlibRun(of: UInt8(ascii: "A"), count: inflatedBytes))
      var bytes = Array(png[..<afterHeader])
      for _ in 0..<chunkCount { bytes += text }
      bytes += png[afterHeader...]
      return Data(bytes)
    }

    @Test func compressedTextChunksAreSkippedUnread() throws {
      let bomb = try Self.bomb()
      let image = try ImageDownscaler().downscale(
        bomb, options: DownscaleOptions(maximumDimension: 64))
      #expect(image.pixelWidth > 0)
      // The header read (which is where libpng meets the chunks) through the shim itself.
      guard let decoder = dex_png_decoder_create() else {
        Issue.record("no decoder")
        return
      }
      defer { dex_png_decoder_destroy(decoder) }
      var header = dex_png_header()
      let status = bomb.withUnsafeBytes { bytes in
        dex_png_read_header(
          decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, 65_535,
          100_000_000, &header)
      }
      #expect(ShimStatus(status) == .ok)
      // Reading the text would take 4 MiB at once at the least (libpng keeps every chunk: 600).
      #expect(dex_png_decoder_library_peak_bytes(decoder) < 1 << 20)
    }
  }

  /// A zlib stream of `count` copies of `byte`: one literal, then back-references of 258 bytes at
  /// distance 1, in one block of fixed Huffman codes (RFC 1951 §3.2.6), about 1 : 160.
  func zlibRun(of byte: UInt8, count: Int) -> [UInt8] {
    var output: [UInt8] = [0x78, 0x01]
    var accumulator: UInt32 = 0
    var filled = 0
    func bits(_ value: UInt32, _ length: Int) {  // least significant bit first
      accumulator |= value << UInt32(filled)
      filled += length
      while filled >= 8 {
        output.append(UInt8(accumulator & 0xFF))
        accumulator >>= 8
        filled -= 8
      }
    }
    func code(_ value: UInt32, _ length: Int) {  // Huffman codes go most significant bit first
      for shift in stride(from: length - 1, through: 0, by: -1) {
        bits(value >> UInt32(shift) & 1, 1)
      }
    }
    func literal(_ value: UInt8) { code(0x30 + UInt32(value), 8) }  // literals 0...143
    bits(1, 1)  // the final block
    bits(1, 2)  // fixed codes
    literal(byte)
    var remaining = count - 1
    while remaining >= 258 {
      code(0xC5, 8)  // length symbol 285: 258 bytes, no extra bits
      code(0, 5)  // distance symbol 0: distance 1
      remaining -= 258
    }
    for _ in 0..<remaining { literal(byte) }
    code(0, 7)  // end of block (symbol 256)
    if filled > 0 { output.append(UInt8(accumulator & 0xFF)) }
    var a: UInt32 = 1
    var b: UInt32 = 0
    for _ in 0..<count {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    let adler = b << 16 | a
    return output + bigEndian32(adler)
  }
#endif
