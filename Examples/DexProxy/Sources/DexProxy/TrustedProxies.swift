import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The balancers whose `X-Forwarded-For` is believed (`DEX_PROXY_TRUSTED_PROXIES`, CIDR blocks).
///
/// Only a request that arrives from one of these addresses has its client address taken from
/// `X-Forwarded-For`: the rightmost entry that is not itself a trusted proxy (entries further
/// left are whatever the client chose to send). From anywhere else the header is ignored, since
/// anyone can send it.
public struct TrustedProxies: Sendable, Equatable {
  /// One CIDR block: an IPv4 or IPv6 address and a prefix length.
  struct Block: Sendable, Equatable {
    var address: [UInt8]
    var prefix: Int

    func contains(_ candidate: [UInt8]) -> Bool {
      guard candidate.count == address.count else { return false }
      var remaining = prefix
      for (lhs, rhs) in zip(address, candidate) where remaining > 0 {
        let bits = min(8, remaining)
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        if lhs & mask != rhs & mask { return false }
        remaining -= bits
      }
      return true
    }
  }

  var blocks: [Block]

  /// No trusted proxies: `X-Forwarded-For` is never used (the default).
  public static let none = TrustedProxies(blocks: [])

  init(blocks: [Block]) { self.blocks = blocks }

  /// Parses a comma-separated list of addresses and CIDR blocks, such as
  /// `10.0.0.0/8, 192.168.1.7, fd00::/8`; `nil` when an entry is malformed.
  public init?(_ text: String) {
    var blocks: [Block] = []
    for entry in text.split(separator: ",") {
      let parts = entry.trimmingCharacters(in: .whitespaces).split(
        separator: "/", omittingEmptySubsequences: false)
      guard (1...2).contains(parts.count), let address = Self.bytes(String(parts[0])) else {
        return nil
      }
      let maximum = address.count * 8
      let prefix = parts.count == 2 ? Int(parts[1]) : maximum
      guard let prefix, (0...maximum).contains(prefix) else { return nil }
      blocks.append(Block(address: address, prefix: prefix))
    }
    self.blocks = blocks
  }

  /// Whether `address` (textual IPv4 or IPv6) is inside one of the blocks. An IPv4-mapped IPv6
  /// address (`::ffff:10.1.2.3`, how a server listening on `::` sees IPv4 peers) also matches
  /// the IPv4 blocks.
  public func contains(_ address: String) -> Bool {
    guard let bytes = Self.bytes(address) else { return false }
    let ipv4 = Self.unmappedIPv4(bytes)
    return blocks.contains { block in
      block.contains(bytes) || ipv4.map { block.contains($0) } == true
    }
  }

  /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else `nil`.
  static func unmappedIPv4(_ bytes: [UInt8]) -> [UInt8]? {
    guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF,
      bytes[11] == 0xFF
    else { return nil }
    return Array(bytes[12...])
  }

  /// The client's address: `remote` itself, unless `remote` is a trusted proxy and
  /// `forwardedFor` (the `X-Forwarded-For` values, joined by commas) names an address that is
  /// not; then the rightmost such address.
  public func clientAddress(remote: String?, forwardedFor: String?) -> String? {
    guard let remote, contains(remote), let forwardedFor else { return remote }
    let hops = forwardedFor.split(separator: ",").map {
      Self.address(ofHop: $0.trimmingCharacters(in: .whitespaces))
    }
    for hop in hops.reversed() {
      guard Self.bytes(hop) != nil else { return remote }
      if !contains(hop) { return hop }
    }
    return remote
  }

  /// An `X-Forwarded-For` entry without the port some balancers add: `203.0.113.5:4711` is
  /// `203.0.113.5`, `[2001:db8::1]:443` is `2001:db8::1`; anything else as it is.
  static func address(ofHop hop: String) -> String {
    if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
      return String(hop[hop.index(after: hop.startIndex)..<close])
    }
    let parts = hop.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count == 2, parts[0].contains("."), !parts[1].isEmpty,
      parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
    {
      return String(parts[0])
    }
    return hop
  }

  /// The 4 or 16 bytes of a textual IPv4 or IPv6 address.
  static func bytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      return withUnsafeBytes(of: &v4) { Array($0) }
    }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 {
      return withUnsafeBytes(of: &v6) { Array($0) }
    }
    return nil
  }
}
