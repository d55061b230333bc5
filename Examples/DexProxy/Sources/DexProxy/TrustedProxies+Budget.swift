extension TrustedProxies {
  /// The key an address is counted under by the per-address budgets: an IPv4 address as it is,
  /// an IPv6 address by its /64 (one subscriber's prefix: its 2^64 addresses are one client), an
  /// IPv4-mapped IPv6 address as its IPv4 address. Anything unparsable counts as one `unknown`.
  static func budgetKey(_ address: String?) -> String {
    guard let address, var bytes = bytes(address) else { return "unknown" }
    if bytes.count == 16 {
      if let ipv4 = unmappedIPv4(bytes) { return ipv4.map(String.init).joined(separator: ".") }
      for index in 8..<16 { bytes[index] = 0 }
      let groups = stride(from: 0, to: 8, by: 2).map {
        String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
      }
      return groups.joined(separator: ":") + "::/64"
    }
    return bytes.map(String.init).joined(separator: ".")
  }
}
