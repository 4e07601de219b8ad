import Foundation

/// Times as RFC 3339 writes them (the `date-time` of JSON Schema and OpenAPI), in full:
/// `T` or `t` (or a space) between date and time, any number of fractional digits, `Z`, `z`
/// or an offset such as `+05:30`, and a leap second (`:60`, read as the next second's start).
public enum ISO8601Parsing {
  public static func date(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    var reader = Reader(bytes: bytes)
    guard let year = reader.digits(4), reader.skip(UInt8(ascii: "-")),
      let month = reader.digits(2), reader.skip(UInt8(ascii: "-")),
      let day = reader.digits(2), (1...12).contains(month),
      (1...daysIn(month: month, year: year)).contains(day),
      let separator = reader.next(),
      [UInt8(ascii: "T"), UInt8(ascii: "t"), 0x20].contains(separator),
      let hour = reader.digits(2), reader.skip(UInt8(ascii: ":")),
      let minute = reader.digits(2), reader.skip(UInt8(ascii: ":")),
      let second = reader.digits(2), hour <= 23, minute <= 59, second <= 60
    else { return nil }
    var fraction = 0.0
    if reader.skip(UInt8(ascii: ".")) {
      var scale = 0.1
      var count = 0
      while let digit = reader.digit() {
        fraction += Double(digit) * scale
        scale /= 10
        count += 1
      }
      guard count > 0 else { return nil }
    }
    guard let zone = reader.next() else { return nil }
    var offsetSeconds = 0
    switch zone {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"): break
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard let hours = reader.digits(2), reader.skip(UInt8(ascii: ":")),
        let minutes = reader.digits(2), hours <= 23, minutes <= 59
      else { return nil }
      offsetSeconds = (hours * 60 + minutes) * 60 * (zone == UInt8(ascii: "-") ? -1 : 1)
    default: return nil
    }
    guard reader.atEnd else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func next() -> UInt8? {
      guard index < bytes.count else { return nil }
      defer { index += 1 }
      return bytes[index]
    }

    mutating func skip(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func digit() -> Int? {
      guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
      defer { index += 1 }
      return Int(bytes[index] - 48)
    }

    mutating func digits(_ count: Int) -> Int? {
      var value = 0
      for _ in 0..<count {
        guard let digit = digit() else { return nil }
        value = value * 10 + digit
      }
      return value
    }
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days arithmetic,
  /// reversed: eras of 400 years, years starting in March).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
