import Foundation
import StoreLedgerCore
import Testing

@Suite struct RevenueMetricsTests {
  static func time(_ text: String) -> Timestamp { InstantText.parse(text)! }

  // MARK: Calendar

  @Test func datesAndTimesAreReadInUTC() {
    #expect(Self.time("2026-01-01").milliseconds == 1_767_225_600_000)
    #expect(Self.time("2026-03").milliseconds == Self.time("2026-03-01").milliseconds)
    #expect(
      Self.time("2026-01-01T01:30:00+01:00").milliseconds == Self.time("2026-01-01").milliseconds
        + 30 * 60_000)
    #expect(InstantText.parse("2026-02-30") == nil)
    #expect(InstantText.parse("2026-13-01") == nil)
    #expect(InstantText.parse("yesterday") == nil)
    #expect(MetricsCalendar.dateText(Self.time("2028-02-29")) == "2028-02-29")
  }

  @Test func bucketsFollowTheCalendar() throws {
    let query = try MetricsQuery(
      from: Self.time("2026-01-15"), to: Self.time("2026-04-01"), granularity: .month,
      now: Self.time("2026-05-01"))
    #expect(
      query.buckets.map { MetricsCalendar.dateText($0.start) } == [
        "2026-01-15", "2026-02-01", "2026-03-01",
      ])
    let weeks = try MetricsQuery(
      from: Self.time("2026-01-01"), to: Self.time("2026-01-15"), granularity: .week,
      now: Self.time("2026-05-01"))
    // 2026-01-01 is a Thursday: the first ISO week is cut at the range's start.
    #expect(
      weeks.buckets.map { MetricsCalendar.dateText($0.start) } == [
        "2026-01-01", "2026-01-05", "2026-01-12",
      ])
  }

  @Test func wholeMonthsAreMonthsAndOtherPeriodsScaleByLength() {
    let january = Self.time("2026-01-31")
    // January 31 to February 28 is one month (the month end clamps).
    #expect(
      TransactionMoney.monthlyValue(of: 9990, from: january, to: Self.time("2026-02-28"))
        == 9990)
    #expect(
      TransactionMoney.monthlyValue(
        of: 99990, from: Self.time("2026-01-01"), to: Self.time("2027-01-01")) == 8333)
    // A week: 990 × 30.436875 / 7 = 4304.6…
    #expect(
      TransactionMoney.monthlyValue(
        of: 990, from: Self.time("2026-01-01"), to: Self.time("2026-01-08")) == 4305)
  }

  // MARK: Bad input

  @Test func aReversedRangeIsATypedError() {
    do {
      _ = try MetricsQuery(
        from: Self.time("2026-02-01"), to: Self.time("2026-01-01"), now: Self.time("2026-03-01"))
    } catch {
      #expect(error.code == .rangeReversed)
      #expect(error.message.contains("--to after --from"))
    }
  }

  @Test func tooManyBucketsIsATypedError() {
    #expect {
      _ = try MetricsQuery(
        from: Self.time("2000-01-01"), to: Self.time("2026-01-01"), granularity: .day,
        now: Self.time("2026-03-01"))
    } throws: { ($0 as? MetricsError)?.code == .rangeTooLong }
  }

  @Test func anUnknownGroupingOrBucketNamesTheChoices() throws {
    #expect(try MetricsDimension.parse("product, storefront") == [.product, .storefront])
    #expect(try MetricsDimension.parse("group") == [.subscriptionGroup])
    do {
      _ = try MetricsDimension.parse("product,colour")
      Issue.record("no error")
    } catch {
      #expect(error.code == .unknownGrouping)
      #expect(error.message.contains("colour") && error.message.contains("storefront"))
    }
    #expect {
      _ = try MetricsGranularity(parsing: "fortnight")
    } throws: { ($0 as? MetricsError)?.code == .unknownGranularity }
  }

  @Test func rateTablesAreCheckedAndExact() throws {
    let csv = "currency,rate,from\nEUR,1.08\nJPY,0.0067,2026-01-01\nJPY,0.0070,2026-07-01\n"
    let rates = try CurrencyRates.read(csv, reportingCurrency: "usd")
    #expect(rates.reportingCurrency == "USD")
    #expect(try rates.convert(10_000, of: "EUR", at: Self.time("2026-03-01")) == 10_800)
    #expect(try rates.convert(1_000_000, of: "JPY", at: Self.time("2026-03-01")) == 6_700)
    #expect(try rates.convert(1_000_000, of: "JPY", at: Self.time("2026-08-01")) == 7_000)
    #expect(try rates.convert(5, of: "USD", at: Self.time("2026-08-01")) == 5)
    // Before its first date a dated rate is not in force.
    #expect {
      _ = try rates.convert(1_000, of: "JPY", at: Self.time("2025-12-31"))
    } throws: { ($0 as? MetricsError)?.code == .rateMissing }
    #expect {
      _ = try rates.convert(1_000, of: "GBP", at: Self.time("2026-03-01"))
    } throws: {
      let error = $0 as? MetricsError
      return error?.code == .rateMissing && error?.message.contains("GBP") == true
    }
    #expect {
      _ = try CurrencyRates.read("EUR,1.08\nEUX,2", reportingCurrency: "USD")
    } throws: {
      let error = $0 as? MetricsError
      return error?.code == .unknownCurrency && error?.message.contains("EUX") == true
    }
    #expect {
      _ = try CurrencyRates.read("EUR,-1", reportingCurrency: "USD")
    } throws: { ($0 as? MetricsError)?.code == .invalidRateTable }
    #expect {
      _ = try CurrencyRates.read("EUR,1.08")
    } throws: { ($0 as? MetricsError)?.code == .invalidRateTable }
    let json = try CurrencyRates.read(rates.jsonText)
    #expect(json == rates)
  }

  @Test func aCommissionOutsideItsRangeIsATypedError() {
    #expect {
      _ = try MetricsQuery(
        at: Self.time("2026-01-01"), now: Self.time("2026-01-02"),
        commission: CommissionPolicy(standardRate: 12_000))
    } throws: { ($0 as? MetricsError)?.code == .invalidCommission }
  }

  @Test func proceedsTakeOutTaxThenCommissionRoundingHalfAwayFromZero() {
    let policy = CommissionPolicy(taxRates: ["DEU": 1900])
    #expect(policy.proceeds(of: 9990, storefront: "USA", rate: 3000) == 6993)
    #expect(policy.proceeds(of: 2575, storefront: nil, rate: 3000) == 1803)
    #expect(policy.proceeds(of: -2575, storefront: nil, rate: 3000) == -1803)
    #expect(policy.proceeds(of: 99990, storefront: "DEU", rate: 1500) == 71421)
    #expect(CommissionPolicy(smallBusiness: true).rate(paidServiceBefore: 0) == 1500)
    #expect(CommissionPolicy().rate(paidServiceBefore: 364 * 86_400_000) == 3000)
    #expect(CommissionPolicy().rate(paidServiceBefore: 365 * 86_400_000) == 1500)
  }

  // MARK: Instants and a missing rate

  /// The scenario of a converted trial asked at one instant, through the Scenario reader.
  static func scenario(_ file: String) throws -> Scenario {
    let directory = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("projections/scenarios")
    return try Scenario.decode(Data(contentsOf: directory.appendingPathComponent(file)))
  }

  @Test func anInstantCountsWhatIsInForceThen() throws {
    let scenario = try Self.scenario("75-revenue-trial-converted.json")
    func at(_ text: String) throws -> MetricsFigures? {
      let query = try MetricsQuery(at: Self.time(text), now: scenario.asOf)
      return try RevenueMetrics.report(of: scenario.events, for: query).rows.first?.figures
    }
    #expect(try at("2026-01-03")?.activeTrials == 1)
    #expect(try at("2026-01-03")?.activeSubscriptions == 0)
    #expect(try at("2026-01-03")?.mrr == 0)
    #expect(try at("2026-01-10")?.activeSubscriptions == 1)
    #expect(try at("2026-01-10")?.mrr == 9990)
    #expect(try at("2025-12-31") == nil)
  }

  /// Given a renewal that failed on February 1 (billing retry) and was recovered on
  /// February 11; when the month is asked under each definition; then StoreLedger's sees no
  /// loss and RevenueCat's a billing churn and a reactivation; on February 5 both count the
  /// subscription in billing retry, not active.
  @Test func theDefinitionDecidesWhenABillingLapseChurns() throws {
    let scenario = try Self.scenario("84-revenue-billing-retry-recovered-is-no-churn.json")
    func month(_ definition: MetricsDefinition) throws -> MetricsFigures? {
      let query = try MetricsQuery(
        from: Self.time("2026-02-01"), to: Self.time("2026-03-01"), granularity: .month,
        now: scenario.asOf
      ).defined(by: definition)
      let report = try RevenueMetrics.report(of: scenario.events, for: query)
      #expect(report.definition == definition)
      return report.rows.first?.figures
    }
    let ours = try month(.storeledger)
    #expect(ours?.churned == 0 && ours?.reactivations == 0)
    let peers = try month(.revenuecat)
    #expect(peers?.churnBilling == 1 && peers?.reactivations == 1)
    #expect(ours?.activeSubscriptions == peers?.activeSubscriptions)
    for definition in MetricsDefinition.allCases {
      let query = try MetricsQuery(at: Self.time("2026-02-05"), now: scenario.asOf)
        .defined(by: definition)
      let figures = try RevenueMetrics.report(of: scenario.events, for: query).rows.first?.figures
      #expect(figures?.activeSubscriptions == 0 && figures?.inBillingRetry == 1)
    }
    #expect {
      _ = try MetricsDefinition(parsing: "chartmogul")
    } throws: { ($0 as? MetricsError)?.code == .unknownDefinition }
    #expect(try MetricsDefinition(parsing: "RevenueCat") == .revenuecat)
  }

  @Test func knownAtLeavesOutWhatWasRecordedLater() throws {
    let scenario = try Self.scenario("83-revenue-late-notification-moves-a-past-figure.json")
    let query = try MetricsQuery(
      from: Self.time("2026-02-01"), to: Self.time("2026-03-01"), granularity: .month,
      knownAt: Self.time("2026-03-01"), now: scenario.asOf)
    let figures = try RevenueMetrics.report(of: scenario.events, for: query).rows.first?.figures
    #expect(figures?.refunds == 0)
    #expect(figures?.activeSubscriptions == 1)
    #expect(figures?.netRevenue == 9990)
  }

  @Test func aRateTableMissingACurrencyTheRangeNeedsIsRefused() throws {
    let scenario = try Self.scenario(
      "85-revenue-reduced-commission-after-a-year-in-a-reporting-currency.json")
    let rates = try CurrencyRates.read("GBP,1.25", reportingCurrency: "USD")
    let query = try MetricsQuery(
      from: Self.time("2026-12-01"), to: Self.time("2027-02-01"), granularity: .month,
      now: scenario.asOf, rates: rates)
    #expect {
      _ = try RevenueMetrics.report(of: scenario.events, for: query)
    } throws: {
      let error = $0 as? MetricsError
      return error?.code == .rateMissing && error?.message.contains("EUR") == true
    }
  }

  @Test func groupingByStorefrontAndOfferSplitsRows() throws {
    let scenario = try Self.scenario("75-revenue-trial-converted.json")
    let query = try MetricsQuery(
      from: Self.time("2026-01-01"), to: Self.time("2026-02-01"), granularity: .month,
      grouping: [.storefront, .offer], now: scenario.asOf)
    let rows = try RevenueMetrics.report(of: scenario.events, for: query).rows
    #expect(
      rows.map(\.group) == [
        ["storefront": "USA", "offer": "1:"], ["storefront": "USA", "offer": "none"],
      ])
    #expect(rows.first?.figures.trialStarts == 1)
    #expect(rows.last?.figures.grossRevenue == 9990)
  }
}

extension RevenueMetricsTests {
  @Test func timesOutsideTheCalendarAreNotTimes() {
    #expect(InstantText.parse("9223372036854775807") == nil)
    #expect(InstantText.parse("-10000000000") == nil)
    // Milliseconds take at most 14 digits (the year 5138); the calendar forms reach 9999.
    #expect(InstantText.parse("99999999999999") != nil)
    #expect(InstantText.parse("253402300799999") == nil)
    #expect(InstantText.parse("9999-12-31T23:59:59.999Z")?.milliseconds == InstantText.latest)
  }
}
