import StoreLedgerCore
import Testing

/// The one reader of typed times (CLI options, HTTP parameters, request bodies).
@Suite struct InstantTextTests {
  static let newYear: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

  // Typed, the literal's element is not inferred from its sums (seconds of type checking).
  @Test(arguments: [
    ("2026-01-01", newYear),
    ("2026-01", newYear),
    ("2026-01-01T00:00:00Z", newYear),
    ("2026-01-01t00:00:00z", newYear),
    ("2026-01-01T01:30:00+01:00", newYear + 30 * 60_000),
    ("2025-12-31T23:00:00-01:00", newYear),
    ("2026-01-01T00:00:00.250Z", newYear + 250),
    ("2026-01-01T00:00:00.2509999Z", newYear + 250),
    ("2026-01-01T00:00:00.5+00:00", newYear + 500),
    ("1767225600000", newYear),
    ("0", 0),
    ("2028-02-29", 1_835_395_200_000),
    ("9999-12-31T23:59:59.999Z", InstantText.latest),
  ] as [(String, Int64)])
  func readsEveryForm(text: String, milliseconds: Int64) {
    #expect(InstantText.parse(text)?.milliseconds == milliseconds)
  }

  @Test(arguments: [
    "", "yesterday", "2026-02-30", "2026-13-01", "2026-1-01", "2026-01-01T00:00Z",
    "2026-01-01T00:00:00", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00.Z",
    "2026-01-01T00:00:00+1:00", "-1000", "1e12", "9223372036854775807", "253402300800000",
    "2026-01-01T00:00:00Z ", "01/02/2026", "2026-01-01 00:00:00Z", "0000-00", "1969-12-31",
    "100000000000000", "2026-02-29",
  ])
  func refusesWhatIsNoTime(text: String) {
    #expect(InstantText.parse(text) == nil)
  }

  @Test func rfc3339AloneForDateTimeFields() {
    #expect(InstantText.rfc3339("2026-01-01T00:00:00Z")?.milliseconds == Self.newYear)
    #expect(InstantText.rfc3339("2026-01-01") == nil)
    #expect(InstantText.rfc3339("1767225600000") == nil)
  }

  /// A body field documented as `format: date-time` takes every RFC 3339 date-time, whatever
  /// its year (schemathesis sent year 0008 with a +07:12 zone and was refused), and the
  /// parameter forms besides.
  @Test func bodyDateTimesTakeAnyYear() {
    let early = "0008-10-15T15:49:19+07:12"
    #expect(InstantText.parse(early) == nil)
    #expect(InstantText.dateTime(early) == InstantText.rfc3339(early))
    #expect(InstantText.dateTime(early).map { $0.milliseconds < 0 } == true)
    #expect(InstantText.dateTime("2026-01-01")?.milliseconds == Self.newYear)
    #expect(InstantText.dateTime("yesterday") == nil)
  }

  @Test func theRefusalNamesEveryFormAndNeverEchoesLongInput() {
    let problem = InstantText.problem("--since", "yesterday")
    #expect(problem == "--since 'yesterday' is not a time: give \(InstantText.forms)")
    for form in ["2026-01-31", "2026-01-31T12:00:00Z", ".250+01:00", "Unix milliseconds"] {
      #expect(problem.contains(form))
    }
    let long = String(repeating: "x", count: 500)
    #expect(!InstantText.problem("at", long).contains(long))
  }
}
