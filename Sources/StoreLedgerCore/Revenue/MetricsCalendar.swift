/// Calendar arithmetic in UTC on App Store times, without Foundation's `Calendar`: bucket
/// boundaries are computed for every period of every subscription, so they must be cheap and
/// the same on every machine.
public enum MetricsCalendar {
  static let day: Int64 = 86_400_000

  /// The start of the bucket of `granularity` holding `time`.
  public static func start(of granularity: MetricsGranularity, holding time: Timestamp)
    -> Timestamp
  {
    let dayNumber = CivilCalendar.floorDiv(time.milliseconds, day)
    switch granularity {
    case .day: return Timestamp(milliseconds: dayNumber * day)
    case .week:
      // 1970-01-01 was a Thursday; ISO weeks start on Monday.
      let monday = dayNumber - ((dayNumber + 3) % 7 + 7) % 7
      return Timestamp(milliseconds: monday * day)
    case .month:
      let date = CivilCalendar.civil(days: dayNumber)
      return Timestamp(
        milliseconds: CivilCalendar.days(year: date.year, month: date.month, day: 1) * day)
    }
  }

  /// The start of the bucket after the one starting at `start`.
  public static func next(_ granularity: MetricsGranularity, after start: Timestamp) -> Timestamp {
    switch granularity {
    case .day: return Timestamp(milliseconds: start.milliseconds + day)
    case .week: return Timestamp(milliseconds: start.milliseconds + 7 * day)
    case .month:
      let date = CivilCalendar.civil(days: CivilCalendar.floorDiv(start.milliseconds, day))
      let (year, month) = date.month == 12 ? (date.year + 1, Int64(1)) : (date.year, date.month + 1)
      return Timestamp(milliseconds: CivilCalendar.days(year: year, month: month, day: 1) * day)
    }
  }

  /// Whole calendar months from `start` to `end` when the period is one (within three days,
  /// which covers month ends and a late billing recovery's minutes), else nil.
  static func wholeMonths(from start: Timestamp, to end: Timestamp) -> Int64? {
    let length = end.milliseconds - start.milliseconds
    guard length >= 25 * day else { return nil }
    let from = CivilCalendar.civil(days: CivilCalendar.floorDiv(start.milliseconds, day))
    let to = CivilCalendar.civil(days: CivilCalendar.floorDiv(end.milliseconds, day))
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
      CivilCalendar.days(
        year: shifted.month == 12 ? shifted.year + 1 : shifted.year,
        month: shifted.month == 12 ? 1 : shifted.month + 1, day: 1)
      - CivilCalendar.days(year: shifted.year, month: shifted.month, day: 1)
    let expected =
      (CivilCalendar.days(year: shifted.year, month: shifted.month, day: min(from.day, lastDay)))
      * day + (start.milliseconds - CivilCalendar.floorDiv(start.milliseconds, day) * day)
    return abs(end.milliseconds - expected) <= 3 * day ? months : nil
  }

  /// `YYYY-MM-DD` of a bucket start (UTC).
  public static func dateText(_ time: Timestamp) -> String {
    let date = CivilCalendar.civil(days: CivilCalendar.floorDiv(time.milliseconds, day))
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
