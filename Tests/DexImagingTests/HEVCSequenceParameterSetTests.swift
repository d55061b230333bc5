#if os(Linux) && SystemImageCodecs
  import DexTestTraits
  import Foundation
  import Testing

  @testable import DexImaging

  /// The SPS reader the stream-size probe asks before libde265 sees an HEVC stream: real encoder
  /// output read as libheif decodes it, hostile parameter sets read without a crash or an
  /// unbounded read, and an SPS larger than its item refused before libde265 builds tables of
  /// its size.
  @Suite(.offCooperativePool) struct HEVCSequenceParameterSetTests {
    typealias Sets = HEVCParameterSets
    let downscaler = ImageDownscaler()

    /// The fixture's SPS NAL units (x265 through libheif's encoder).
    static func sequenceParameterSets(_ name: String) throws -> [[UInt8]] {
      let file = [UInt8](try resource(name, in: "Resources/formats"))
      return Sets.arrays(ofHvcC: try Sets.hvcC(of: file))
        .filter { $0.header & 0x3F == HEVCSequenceParameterSet.nalUnitType }
        .flatMap(\.nals)
    }

    /// The fixture's SPS, rewritten to declare `width` x `height` (every other field kept).
    static func resizedSPS(width: Int, height: Int) throws -> [UInt8] {
      let sps = try #require(try sequenceParameterSets("heic-8bit.heic").first)
      return try Sets.sps(sps, width: width, height: height)
    }

    /// An item's stream as libheif hands it to a decoder: its `hvcC` NAL units, then its data,
    /// every NAL unit after a 4-byte big-endian length.
    static func stream(_ nals: [[UInt8]], data: [UInt8] = []) -> [UInt8] {
      nals.flatMap { bigEndian32(UInt32($0.count)) + $0 } + data
    }

    static func largest(_ stream: [UInt8]) -> HEVCSequenceParameterSet? {
      stream.withUnsafeBytes { HEVCSequenceParameterSet.largest(inStream: $0) }
    }

    /// Each fixture's SPS declares the size libheif decodes, rounded up to whole 8 x 8 coding
    /// blocks (the coded size; the conformance window crops it), read alone and from the stream
    /// libheif hands over (parameter sets, then the item's slices).
    @Test(arguments: [
      "heic-8bit.heic", "heic-10bit.heic", "heic-alpha.heic", "heic-exif-date.heic",
    ])
    func realParameterSetsDeclareTheDecodedSize(_ name: String) throws {
      let file = [UInt8](try resource(name, in: "Resources/formats"))
      let nals = try Self.sequenceParameterSets(name)
      try #require(!nals.isEmpty)
      let sps = try #require(HEVCSequenceParameterSet(nalUnit: nals[0]))
      let parameterSets = Sets.arrays(ofHvcC: try Sets.hvcC(of: file)).flatMap(\.nals)
      let mdat = try #require(FormatsBadInputTests.boxBody("mdat", in: file))
      #expect(Self.largest(Self.stream(parameterSets, data: Array(file[mdat...]))) == sps)
      guard HEIFCapability.decodes(Data(file)) else { return }
      let image = try downscaler.decodePixels(from: Data(file), target: .original)
      #expect(sps.width == UInt64((image.width + 7) / 8 * 8), "\(sps) for \(image.width)")
      #expect(sps.height == UInt64((image.height + 7) / 8 * 8), "\(sps) for \(image.height)")
    }

    /// A cut SPS is read only when its sizes are whole; before them it is unreadable.
    @Test func truncatedParameterSetsAreUnreadableOrWhole() throws {
      let nal = try Self.resizedSPS(width: 30_000, height: 30_000)
      let whole = try #require(HEVCSequenceParameterSet(nalUnit: nal))
      #expect(whole == HEVCSequenceParameterSet(width: 30_000, height: 30_000))
      // Header, sub-layer byte and the 12 bytes of profile_tier_level come before any size.
      for length in 0..<15 { #expect(HEVCSequenceParameterSet(nalUnit: nal.prefix(length)) == nil) }
      var readable = 0
      for length in 0..<nal.count {
        guard let cut = HEVCSequenceParameterSet(nalUnit: nal.prefix(length)) else { continue }
        #expect(cut == whole, "cut at \(length)")
        readable += 1
      }
      #expect(readable < nal.count - 15, "some cut ends inside the sizes")
      // In a stream, a length past the end stops the reading.
      var stream = Self.stream([nal])
      stream.removeLast()
      #expect(Self.largest(stream) == nil)
    }

    /// Zeros are an endless Exp-Golomb prefix: unreadable, and only the first 256 bytes of a
    /// NAL unit are looked at, however long it is.
    @Test func zerosAreUnreadable() {
      let header: [UInt8] = [0x42, 0x01]
      #expect(HEVCSequenceParameterSet(nalUnit: header + [UInt8](repeating: 0, count: 200)) == nil)
      #expect(HEVCSequenceParameterSet(nalUnit: [UInt8](repeating: 0, count: 200)) == nil)
      let long = header + [UInt8](repeating: 0, count: 1 << 24)
      #expect(Self.largest(Self.stream([long, long])) == nil)
      #expect(Self.largest([UInt8](repeating: 0, count: 4096)) == nil)
    }

    /// Sizes up to 2^32 - 2 (31 leading zeros) are read; 2^32 - 1 needs 32 and is unreadable
    /// (libde265 gives up after 20).
    @Test func thirtyTwoBitSizesAreReadAndNoMore() throws {
      let largest = (1 << 32) - 2
      let huge = try Self.resizedSPS(width: largest, height: 64)
      #expect(
        HEVCSequenceParameterSet(nalUnit: huge)
          == HEVCSequenceParameterSet(width: UInt64(largest), height: 64))
      #expect(
        HEVCSequenceParameterSet(nalUnit: try Self.resizedSPS(width: largest + 1, height: 64))
          == nil)
    }

    /// Sizes whose codes hold runs of zero bytes are written with emulation-prevention bytes
    /// (`00 00 03`), which the reader drops as the decoder does.
    @Test(arguments: [(1 << 31) - 1, 1 << 31, (1 << 32) - 2])
    func emulationPreventionBytesAreDropped(_ size: Int) throws {
      let nal = try Self.resizedSPS(width: size, height: size)
      let escaped = (0..<nal.count - 2).contains {
        nal[$0] == 0 && nal[$0 + 1] == 0 && nal[$0 + 2] == 3
      }
      #expect(escaped, "the test's SPS holds an emulation-prevention byte")
      #expect(
        HEVCSequenceParameterSet(nalUnit: nal)
          == HEVCSequenceParameterSet(width: UInt64(size), height: UInt64(size)))
    }

    /// profile_tier_level's sub-layer parts are skipped as their flags say: an SPS with three
    /// sub-layers (the first with a profile, the second with a level, the third with neither).
    @Test func subLayerProfilesAndLevelsAreSkipped() {
      var writer = Sets.Writer()
      writer.write(0x4201, 16)  // NAL header: SPS, layer 0, temporal id 1
      writer.write(0, 4)  // sps_video_parameter_set_id
      writer.write(3, 3)  // sps_max_sub_layers_minus1
      writer.write(1, 1)  // sps_temporal_id_nesting_flag
      writer.write(0x5A5A, 16)
      writer.write(0, 80)  // general profile, tier and level (96 bits)
      writer.write(0b10_01_00, 6)  // per sub-layer: profile present, level present
      writer.write(0, 2 * 5)  // reserved_zero_2bits for sub-layers 3...7
      writer.write(0x7FF, 11)
      writer.write(0, 77)  // sub-layer 0's profile (88 bits)
      writer.write(0xFF, 8)  // sub-layer 1's level
      writer.writeExpGolomb(0)  // sps_seq_parameter_set_id
      writer.writeExpGolomb(3)  // chroma_format_idc 4:4:4
      writer.write(0, 1)  // separate_colour_plane_flag
      writer.writeExpGolomb(1920)
      writer.writeExpGolomb(1080)
      writer.write(1, 1)
      #expect(
        HEVCSequenceParameterSet(nalUnit: writer.bytes)
          == HEVCSequenceParameterSet(width: 1920, height: 1080))
    }

    /// The stream's largest width and largest height count, from any SPS; other NAL units and
    /// an SPS that cannot be read are passed over.
    @Test func theLargestSizesOfAStreamCount() throws {
      let wide = try Self.resizedSPS(width: 4000, height: 16)
      let tall = try Self.resizedSPS(width: 16, height: 3000)
      let vps: [UInt8] = [0x40, 0x01, 0xFF, 0xFF]
      let stream = Self.stream([vps, wide, Array(tall.prefix(10)), tall, [0x42]])
      #expect(Self.largest(stream) == HEVCSequenceParameterSet(width: 4000, height: 3000))
      #expect(Self.largest(Self.stream([vps])) == nil)
    }

    /// An SPS larger than its item is refused before libde265 reads the stream. Each case is one
    /// that libde265 alone refuses differently, so that the message shows which check spoke:
    /// 30000 x 30000 without a PPS (libde265 never reaches a picture) and 2^32 - 2 wide (libde265
    /// refuses an SPS over 65535 as malformed). The 30000 x 30000 stream with its PPS (the
    /// benchmark's row: 250 MiB in libde265's tables before the reader) is
    /// HEIFReproducerTests.aStreamDeclaringMoreThanItsItemIsNamed.
    @Test(arguments: [(30_000, 30_000, true), ((1 << 32) - 2, 64, false)])
    func aLargerSPSIsRefusedBeforeLibde265(
      _ width: Int, _ height: Int, _ droppingPPS: Bool
    )
      throws
    {
      let file = Data(
        try HEIFReproducerTests.lyingHEVCStream(
          width: width, height: height, infeVersion: 3, droppingPPS: droppingPPS))
      guard HEIFCapability.decodes(file) else { return }
      #expect {
        try downscaler.decodePixels(from: file, target: .fitting(maximumDimension: 64))
      } throws: { error in
        guard case ImagingError.corruptData(.heif, let message) = error else { return false }
        return message.contains(
          "coded data declares pictures larger than its image size (ispe): "
            + "\(width)x\(height) for 64x64")
      }
    }
  }
#endif
