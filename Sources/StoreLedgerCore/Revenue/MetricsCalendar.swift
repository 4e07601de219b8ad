/// Calendar arithmetic in UTC on App Store times, without Foundation's `Calendar`: bucket
/// boundaries are computed for every period of every subscription, so they must be cheap and
/// the same on every machine.
public enum MetricsCalendar {
  static let day: Int64 = 86_400_000

  /// Days since 1970-01-01 of a civil date (proleptic Gregorian).
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The civil date of a day number.
  static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }

  /// The start of the bucket of `granularity` holding `time`.
  public static func start(of granularity: MetricsGranularity, holding time: Timestamp)
    -> Timestamp
  {
    let dayNumber = floorDiv(time.milliseconds, day)
    switch granularity {
    case .day: return Timestamp(milliseconds: dayNumber * day)
    case .week:
      // 1970-01-01 was a Thursday; ISO weeks start on Monday.
      let monday = dayNumber - ((dayNumber + 3) % 7 + 7) % 7
      return Timestamp(milliseconds: monday * day)
    case .month:
      let date = civil(days: dayNumber)
      return Timestamp(milliseconds: days(year: date.year, month: date.month, day: 1) * day)
    }
  }

  /// The start of the bucket after the one starting at `start`.
  public static func next(_ granularity: MetricsGranularity, after start: Timestamp) -> Timestamp {
    switch granularity {
    case .day: return Timestamp(milliseconds: start.milliseconds + day)
    case .week: return Timestamp(milliseconds: start.milliseconds + 7 * day)
    case .month:
      let date = civil(days: floorDiv(start.milliseconds, day))
      let (year, month) = date.month == 12 ? (date.year + 1, Int64(1)) : (date.year, date.month + 1)
      return Timestamp(milliseconds: days(year: year, month: month, day: 1) * day)
    }
  }

  /// Whole calendar months from `start` to `end` when the period is one (within three days,
  /// which covers month ends and a late billing recovery's minutes), else nil.
  static func wholeMonths(from start: Timestamp, to end: Timestamp) -> Int64? {
    let length = end.milliseconds - start.milliseconds
    guard length >= 25 * day else { return nil }
    let from = civil(days: floorDiv(start.milliseconds, day))
    let to = civil(days: floorDiv(end.milliseconds, day))
    var months = (to.year - from.year) * 12 + (to.month - from.month)
    if to.day - from.day > 15 { months += 1 } else if from.day - to.day > 15 { months -= 1 }
    guard months >= 1 else { return nil }
    var shifted = from
    shifted.month += months
    while shifted.month > 12 {
      shifted.month -= 12
      shifted.year += 1
    }
    // A month end clamps (Jan 31 + 1 month is Feb 28/29).
    let lastDay =
      days(
        year: shifted.month == 12 ? shifted.year + 1 : shifted.year,
        month: shifted.month == 12 ? 1 : shifted.month + 1, day: 1)
      - days(year: shifted.year, month: shifted.month, day: 1)
    let expected =
      (days(year: shifted.year, month: shifted.month, day: min(from.day, lastDay)))
      * day + (start.milliseconds - floorDiv(start.milliseconds, day) * day)
    return abs(end.milliseconds - expected) <= 3 * day ? months : nil
  }

  /// `YYYY-MM-DD` of a bucket start (UTC).
  public static func dateText(_ time: Timestamp) -> String {
    let date = civil(days: floorDiv(time.milliseconds, day))
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))"
  }

  /// `YYYY-MM` of a month.
  public static func monthText(_ time: Timestamp) -> String {
    String(dateText(time).prefix(7))
  }
}
