/// An 8-bit sRGB colour, so that category tints can be shared without importing a UI framework.
///
/// Convert it to `Color`, `UIColor`, a CSS string (``cssHex``) or an ANSI escape as your front end
/// needs.
public struct DexColor: Hashable, Sendable, Codable {
  /// The red component, 0–255.
  public var red: UInt8
  /// The green component, 0–255.
  public var green: UInt8
  /// The blue component, 0–255.
  public var blue: UInt8

  /// Creates a colour from 8-bit sRGB components.
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// The colour as a lower-case CSS hex string, for example `#34a853`.
  public var cssHex: String {
    "#"
      + [red, green, blue].map { component in
        let hex = String(component, radix: 16)
        return hex.count == 1 ? "0" + hex : hex
      }.joined()
  }

  /// The components scaled to `0...1`, the form SwiftUI's `Color(red:green:blue:)` takes.
  public var unitComponents: (red: Double, green: Double, blue: Double) {
    (Double(red) / 255, Double(green) / 255, Double(blue) / 255)
  }
}
