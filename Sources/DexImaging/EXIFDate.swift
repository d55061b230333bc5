/// A date and time a photo's EXIF metadata states, exactly as written: the camera's local
/// wall-clock time, with no time zone (EXIF keeps the offset, when at all, in other tags).
///
/// It exists so that an app can say when a photo was *taken* rather than when its file was last
/// touched (copying, syncing and editing change the file time). ``DownscaledImage/exifDate``
/// carries it out of a decode; values always form a valid calendar date and time of day.
public struct EXIFDate: Sendable, Hashable, Codable, CustomStringConvertible {
  /// Which EXIF tag the date was read from.
  public enum Tag: String, Sendable, Hashable, Codable {
    /// DateTimeOriginal (0x9003, in the Exif IFD): when the picture was taken.
    case dateTimeOriginal
    /// DateTime (0x0132, in IFD0): when the file was written by the camera or last by an
    /// editor; used only when there is no DateTimeOriginal.
    case dateTime
  }

  /// The tag the date came from.
  public var tag: Tag
  /// The year, 1...9999.
  public var year: Int
  /// The month, 1...12.
  public var month: Int
  /// The day of the month, valid for ``month`` and ``year``.
  public var day: Int
  /// The hour, 0...23.
  public var hour: Int
  /// The minute, 0...59.
  public var minute: Int
  /// The second, 0...60 (60 for a leap second).
  public var second: Int

  /// Creates a date, or `nil` when the fields do not form a valid date and time of day.
  public init?(
    year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, tag: Tag
  ) {
    guard (1...9999).contains(year), (1...12).contains(month),
      (1...Self.days(inMonth: month, year: year)).contains(day), (0...23).contains(hour),
      (0...59).contains(minute), (0...60).contains(second)
    else { return nil }
    (self.year, self.month, self.day) = (year, month, day)
    (self.hour, self.minute, self.second) = (hour, minute, second)
    self.tag = tag
  }

  /// Parses EXIF's `YYYY:MM:DD HH:MM:SS` (19 characters); `nil` for anything else, including
  /// the all-zero and all-blank placeholders some cameras write.
  public init?(exifText: String, tag: Tag) {
    self.init(exifBytes: Array(exifText.utf8), tag: tag)
  }

  /// Parses the 19 bytes of an EXIF date.
  init?(exifBytes bytes: some Collection<UInt8>, tag: Tag) {
    let text = Array(bytes)
    guard text.count == 19, text[4] == UInt8(ascii: ":"), text[7] == UInt8(ascii: ":"),
      text[10] == UInt8(ascii: " "), text[13] == UInt8(ascii: ":"),
      text[16] == UInt8(ascii: ":")
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in text[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
    else { return nil }
    self.init(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second, tag: tag)
  }

  /// Decodes a date, refusing fields that do not form a valid one.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    guard
      let date = EXIFDate(
        year: try container.decode(Int.self, forKey: .year),
        month: try container.decode(Int.self, forKey: .month),
        day: try container.decode(Int.self, forKey: .day),
        hour: try container.decode(Int.self, forKey: .hour),
        minute: try container.decode(Int.self, forKey: .minute),
        second: try container.decode(Int.self, forKey: .second),
        tag: try container.decode(Tag.self, forKey: .tag))
    else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "not a valid EXIF date and time"))
    }
    self = date
  }

  /// The date as ISO 8601 local time without a zone, `YYYY-MM-DDTHH:MM:SS`.
  public var description: String {
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(repeating: "0", count: 4 - String(self.year).count) + String(self.year)
    return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
  }

  private static func days(inMonth month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}
