/// The one reader of times people type: every CLI option and HTTP parameter that names an
/// instant reads it here, so each accepts the same forms and refuses with the same words.
///
/// Accepted: a date (`2026-01-31`, midnight UTC) or a month (`2026-01`, its first day); an
/// RFC 3339 time with a zone, with or without a fraction (`2026-01-31T12:00:00Z`,
/// `2026-01-31T12:00:00.250+01:00`; `t` and `z` in lower case as RFC 3339 allows); or Unix
/// milliseconds, up to 14 digits (`1769860800000`). Years outside 1970…9999 are not App Store
/// times; a zone that carries a time of those years past 1970 or 9999 in UTC is read as that
/// edge, where nothing can have happened anyway. The HTTP document's `Instant` pattern says
/// exactly this, so what fits the document is read.
public enum InstantText {
  /// The forms, as every refusal names them.
  public static let forms =
    "a date (2026-01-31), an RFC 3339 time with a zone, with or without a fraction "
    + "(2026-01-31T12:00:00Z, 2026-01-31T12:00:00.250+01:00), or Unix milliseconds (1769860800000)"

  /// 9999-12-31T23:59:59.999Z: later times are not App Store times (and would overflow the
  /// calendar arithmetic).
  public static let latest: Int64 = 253_402_300_799_999

  /// The instant `text` names, or nil when it is none of the accepted forms.
  public static func parse(_ text: String) -> Timestamp? {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return nil }
    let time: Int64?
    if bytes.allSatisfy({ (48...57).contains($0) }) {
      // Unix milliseconds; 14 digits reach the year 5138.
      time = bytes.count <= 14 ? Int64(text) : nil
    } else {
      var year = Reader(bytes: bytes)
      time =
        (1970...9999).contains(year.digits(4) ?? 0)
        ? calendar(bytes, timeRequired: false).map { min(max($0, 0), latest) } : nil
    }
    guard let time else { return nil }
    return Timestamp(milliseconds: time)
  }

  /// An RFC 3339 `date-time` only (what an OpenAPI `format: date-time` value must be).
  public static func rfc3339(_ text: String) -> Timestamp? {
    guard let time = calendar(Array(text.utf8), timeRequired: true) else { return nil }
    return Timestamp(milliseconds: time)
  }

  /// A time in a request body whose schema says `format: date-time`: every form ``parse``
  /// reads, and any RFC 3339 date-time whatever its year, since the document promises that
  /// any such value is accepted (a grant dated before 1970 is odd, but not malformed).
  public static func dateTime(_ text: String) -> Timestamp? {
    parse(text) ?? rfc3339(text)
  }

  /// The refusal of `text` given for `name` (an option or a parameter): what was wrong and
  /// the forms that are accepted. Long input is shortened, never echoed whole.
  public static func problem(_ name: String, _ text: String) -> String {
    let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return "\(name) '\(shown)' is not a time: give \(forms)"
  }

  /// `YYYY-MM`, `YYYY-MM-DD` or an RFC 3339 time, in milliseconds since 1970 (UTC).
  private static func calendar(_ bytes: [UInt8], timeRequired: Bool) -> Int64? {
    var reader = Reader(bytes: bytes)
    guard let year = reader.digits(4), reader.skip(UInt8(ascii: "-")),
      let month = reader.digits(2), (1...12).contains(month)
    else { return nil }
    guard reader.skip(UInt8(ascii: "-")) else {
      return reader.atEnd && !timeRequired ? days(year, month, 1) * 86_400_000 : nil
    }
    guard let day = reader.digits(2), (1...daysIn(month: month, year: year)).contains(day) else {
      return nil
    }
    let midnight = days(year, month, day) * 86_400_000
    if reader.atEnd { return timeRequired ? nil : midnight }
    guard let separator = reader.next(),
      separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t"),
      let hour = reader.digits(2), reader.skip(UInt8(ascii: ":")),
      let minute = reader.digits(2), reader.skip(UInt8(ascii: ":")),
      let second = reader.digits(2), hour <= 23, minute <= 59, second <= 60
    else { return nil }
    var milliseconds = ((hour * 60 + minute) * 60 + second) * 1000
    if reader.skip(UInt8(ascii: ".")) {
      // A fraction of any length, rounded down to the millisecond it falls in.
      var scale: Int64 = 100
      var count = 0
      while let digit = reader.digit() {
        milliseconds += digit * scale
        scale /= 10
        count += 1
      }
      guard count > 0 else { return nil }
    }
    guard let zone = reader.next() else { return nil }
    switch zone {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"): break
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard let hours = reader.digits(2), reader.skip(UInt8(ascii: ":")),
        let minutes = reader.digits(2), hours <= 23, minutes <= 59
      else { return nil }
      milliseconds -= (hours * 60 + minutes) * 60_000 * (zone == UInt8(ascii: "-") ? -1 : 1)
    default: return nil
    }
    guard reader.atEnd else { return nil }
    return midnight + milliseconds
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

    mutating func digit() -> Int64? {
      guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
      defer { index += 1 }
      return Int64(bytes[index] - 48)
    }

    mutating func digits(_ count: Int) -> Int64? {
      var value: Int64 = 0
      for _ in 0..<count {
        guard let digit = digit() else { return nil }
        value = value * 10 + digit
      }
      return value
    }
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  private static func days(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
    CivilCalendar.days(year: year, month: month, day: day)
  }
}
