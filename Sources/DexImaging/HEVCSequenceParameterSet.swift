/// The picture size an HEVC sequence parameter set (SPS, ITU-T H.265 section 7.3.2.2) declares:
/// `pic_width_in_luma_samples` x `pic_height_in_luma_samples`, the coded size libde265 builds
/// its per-picture tables for.
///
/// Why it is read here: libde265 sizes its picture-parameter-set tables from the SPS as soon as a
/// PPS arrives, before it asks for a picture, so the stream-size probe (heif_probe.c), which
/// learns the size from libde265's picture allocator, learns it only after those tables exist
/// (`hevc-30000-under-64-infe-v3.heic`, HEIFReproducerTests: an SPS of 30000 x 30000 under a
/// 64 x 64 `ispe` peaked at 250 MiB before the refusal). Neither libde265 1.0.11 nor libheif 1.19
/// reports an SPS's size before that point, so the probe hands each HEVC stream to this reader
/// first and refuses an SPS larger than the item before libde265 sees it; libde265 stays the check
/// of everything else.
///
/// Only the fields up to the picture size are read, every read bounds-checked: the 2-byte NAL
/// header, `sps_video_parameter_set_id`, `sps_max_sub_layers_minus1`, the temporal-nesting flag,
/// `profile_tier_level` (its sub-layer parts skipped as their presence flags say),
/// `sps_seq_parameter_set_id`, `chroma_format_idc` (and `separate_colour_plane_flag` for 4:4:4),
/// then the two sizes. Emulation-prevention bytes (`00 00 03`) are dropped as the decoder drops
/// them. An Exp-Golomb code with more than 31 leading zeros is unreadable (libde265 gives up
/// after 20), so a size is at most 2^32 - 2.
struct HEVCSequenceParameterSet: Sendable, Equatable {
  /// `pic_width_in_luma_samples`.
  var width: UInt64
  /// `pic_height_in_luma_samples`.
  var height: UInt64

  /// `nal_unit_type` of a sequence parameter set.
  static let nalUnitType: UInt8 = 33

  /// The most bytes of a NAL unit ever read: the sizes end within the first 150 bytes of the
  /// longest possible header (8 sub-layers with profiles and levels, four 32-bit codes).
  static let readLimit = 256

  /// A size read elsewhere (the largest of several).
  init(width: UInt64, height: UInt64) {
    self.width = width
    self.height = height
  }

  /// Reads the sizes from one NAL unit (its 2-byte header first, emulation prevention in
  /// place); `nil` when it is not an SPS or ends before its sizes.
  init?(nalUnit: some Collection<UInt8>) {
    var reader = BitReader(rbsp: Self.unescaped(nalUnit.prefix(Self.readLimit)))
    guard reader.skip(1), let type = reader.bits(6), UInt8(type) == Self.nalUnitType,
      reader.skip(6 + 3),  // nuh_layer_id, nuh_temporal_id_plus1
      reader.skip(4),  // sps_video_parameter_set_id
      let subLayersMinus1 = reader.bits(3), reader.skip(1),  // sps_temporal_id_nesting_flag
      Self.skipProfileTierLevel(&reader, subLayersMinus1: Int(subLayersMinus1)),
      reader.expGolomb() != nil,  // sps_seq_parameter_set_id
      let chroma = reader.expGolomb(),
      chroma != 3 || reader.skip(1),  // separate_colour_plane_flag
      let width = reader.expGolomb(), let height = reader.expGolomb()
    else { return nil }
    self.width = width
    self.height = height
  }

  /// The largest width and the largest height of the SPSs in `stream`, NAL units each after a
  /// 4-byte big-endian length as libheif hands an HEVC item to a decoder (its `hvcC` parameter
  /// sets, then the item's data); `nil` when none is readable. Reading stops at a length that
  /// runs past the end, as the probe's own framing does.
  static func largest(inStream stream: UnsafeRawBufferPointer) -> HEVCSequenceParameterSet? {
    var largest: HEVCSequenceParameterSet?
    var at = 0
    while stream.count - at >= 4 {
      let length = stream[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      guard length <= stream.count - at - 4 else { break }
      let nal = stream[at + 4..<at + 4 + length]
      if let first = nal.first, first >> 1 & 0x3F == nalUnitType,
        let sps = HEVCSequenceParameterSet(nalUnit: nal)
      {
        largest = HEVCSequenceParameterSet(
          width: Swift.max(sps.width, largest?.width ?? 0),
          height: Swift.max(sps.height, largest?.height ?? 0))
      }
      at += 4 + length
    }
    return largest
  }

  /// `bytes` without the emulation-prevention byte of each `00 00 03`.
  static func unescaped(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var rbsp: [UInt8] = []
    rbsp.reserveCapacity(bytes.count)
    var zeros = 0
    for byte in bytes {
      if zeros >= 2, byte == 3 {
        zeros = 0
        continue
      }
      zeros = byte == 0 ? zeros + 1 : 0
      rbsp.append(byte)
    }
    return rbsp
  }

  /// Skips `profile_tier_level(1, sps_max_sub_layers_minus1)` (H.265 section 7.3.3).
  private static func skipProfileTierLevel(
    _ reader: inout BitReader, subLayersMinus1: Int
  )
    -> Bool
  {
    guard reader.skip(96) else { return false }  // general profile, tier and level
    var present: [(profile: Bool, level: Bool)] = []
    for _ in 0..<subLayersMinus1 {
      guard let profile = reader.bits(1), let level = reader.bits(1) else { return false }
      present.append((profile == 1, level == 1))
    }
    if subLayersMinus1 > 0, !reader.skip(2 * (8 - subLayersMinus1)) { return false }
    for layer in present {
      if layer.profile, !reader.skip(88) { return false }
      if layer.level, !reader.skip(8) { return false }
    }
    return true
  }

  /// Reads bits most significant first; every read past the end is `nil`.
  struct BitReader {
    let rbsp: [UInt8]
    var position = 0

    mutating func bits(_ count: Int) -> UInt64? {
      guard count <= 64, position + count <= rbsp.count * 8 else { return nil }
      var value: UInt64 = 0
      for _ in 0..<count {
        let bit = rbsp[position >> 3] >> (7 - UInt8(position & 7)) & 1
        value = value << 1 | UInt64(bit)
        position += 1
      }
      return value
    }

    mutating func skip(_ count: Int) -> Bool {
      guard position + count <= rbsp.count * 8 else { return false }
      position += count
      return true
    }

    /// `ue(v)`, with at most 31 leading zeros.
    mutating func expGolomb() -> UInt64? {
      var zeros = 0
      while true {
        guard let bit = bits(1) else { return nil }
        if bit == 1 { break }
        zeros += 1
        if zeros > 31 { return nil }
      }
      guard let rest = bits(zeros) else { return nil }
      return (1 << UInt64(zeros)) - 1 + rest
    }
  }
}
