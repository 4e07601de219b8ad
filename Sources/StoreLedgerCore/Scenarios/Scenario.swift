import Foundation

/// A scenario file (design.md, "Scenario files"): events with decoded payloads, a time, an
/// optional catalog, and optionally the expected fold output. Used by the golden tests and by
/// `storeledger fold`.
public struct Scenario: Sendable, Decodable {
  public var name: String
  public var description: String?
  public var catalog: ProductCatalog?
  /// The time the projections are evaluated at (ms).
  public var asOf: Timestamp
  /// Which events the fold uses: `everything` (default), `appleKnew` or `weKnew` (at `asOf`).
  public var knowledge: KnowledgeName?
  /// Whether billing retry (status 3) is entitled; default false.
  public var billingRetryIsEntitled: Bool?
  /// Whether Sandbox purchases entitle (default yes).
  public var sandboxEntitles: Bool?
  /// Whether a `RESCIND_CONSENT` ends its download's entitlements (default no).
  public var rescindedConsentEndsEntitlements: Bool?
  public var events: [LedgerEvent]
  /// The expected `fold --json` output; only the fields given are compared.
  public var expect: JSONValue?
  /// The account whose change feed ``expectChanges`` lists (projections/changes.md).
  public var changesOf: String?
  /// The account's expected changes, in order, every one of them.
  public var expectChanges: [ExpectedChange]?
  /// The account whose status history ``expectHistory`` lists (projections/changes.md,
  /// "Status history").
  public var historyOf: String?
  /// The account's expected status history through `asOf`, every entry, oldest first.
  public var expectHistory: [ExpectedEntry]?
  /// A metrics question about the events (projections/revenue.md), asked at `asOf`.
  public var metrics: MetricsSpec?
  /// The expected answer (`metrics --json`), compared like `expect`.
  public var expectMetrics: JSONValue?
  /// The expected difference between the answers known at `metrics.diffKnownAt`.
  public var expectMetricsDiff: JSONValue?

  /// One expected change: its type, subject, old and new values (as `AccountChange` holds
  /// them) and when it happened.
  public struct ExpectedChange: Sendable, Codable, Hashable, CustomStringConvertible {
    public var type: String
    public var subject: String
    public var old: String?
    public var new: String?
    public var at: Timestamp

    /// A change as a scenario writes it: for a lifecycle change with money, `new` is the
    /// amount (the rest of the money is shown by unit tests).
    public init(_ derived: DerivedChange) {
      type = derived.change.kind.rawValue
      subject = derived.change.subject
      old = derived.change.old
      new =
        derived.change.kind.carriesMoney
        ? derived.change.money?.amount.map(String.init) : derived.change.new
      at = derived.occurredAt
    }

    public var description: String {
      "\(type) \(subject) \(old ?? "–") → \(new ?? "–") at \(at.milliseconds)"
    }
  }

  /// One expected entry of a status history: the subscription, the status left (nil for its
  /// first) and entered, and when it took effect.
  public struct ExpectedEntry: Sendable, Codable, Hashable, CustomStringConvertible {
    public var subscription: String
    public var from: Int32?
    public var to: Int32
    public var at: Timestamp

    public init(_ row: StatusTransitionRow) {
      subscription = row.originalTransactionId
      from = row.from
      to = row.to
      at = row.effectiveAt
    }

    public var description: String {
      "\(subscription) \(from.map(String.init) ?? "–") → \(to) at \(at.milliseconds)"
    }
  }

  public enum KnowledgeName: String, Sendable, Codable {
    case everything, appleKnew, weKnew
  }

  /// Decodes a scenario; errors name the event index and field.
  public static func decode(_ data: Data) throws(ScenarioError) -> Scenario {
    do {
      var scenario = try JSONDecoder().decode(Scenario.self, from: data)
      // Explanations cite scenario events by their place in the file.
      for index in scenario.events.indices where scenario.events[index].key == nil {
        scenario.events[index].key = "events[\(index)]"
      }
      return scenario
    } catch let error as DecodingError {
      throw ScenarioError(error)
    } catch {
      throw ScenarioError(message: "not a scenario: \(error.localizedDescription)")
    }
  }

  /// The fold at `time` (default `asOf`) with this scenario's catalog, knowledge and options.
  public func snapshot(at time: Timestamp? = nil) -> LedgerSnapshot {
    view(at: time).snapshot(at: time ?? asOf)
  }

  /// The view the snapshot is taken from, for explanations.
  public func view(at time: Timestamp? = nil) -> LedgerView {
    let when = time ?? asOf
    let knowing: Knowledge =
      switch knowledge ?? .everything {
      case .everything: .everything
      case .appleKnew: .appleKnew(at: when)
      case .weKnew: .weKnew(at: when)
      }
    return LedgerView(
      LedgerState.fold(events, knowing: knowing), catalog: catalog ?? .empty,
      options: ProjectionOptions(
        billingRetryIsEntitled: billingRetryIsEntitled ?? false,
        sandboxEntitles: sandboxEntitles ?? true,
        rescindedConsentEndsEntitlements: rescindedConsentEndsEntitlements ?? false))
  }

  /// The account's changes derived from the events in file order, each taken at its
  /// `recordedAt` (else Apple's signedDate), and the clock's up to `asOf`.
  public func changes(of token: String) -> [DerivedChange] {
    let options = view().options
    var derivation = ChangeDerivation(
      token: token, catalog: catalog ?? .empty, options: options)
    var derived = events.flatMap { event in
      derivation.apply(event, at: event.recordedAt ?? event.effectiveDate ?? asOf)
    }
    derived += derivation.advance(to: asOf)
    return derived
  }

  /// How the derived changes differ from `expectChanges` (empty when they match or nothing is
  /// expected).
  public func changeMismatches() -> [String] {
    guard let expected = expectChanges, let token = changesOf else { return [] }
    let found = changes(of: token).map(ExpectedChange.init)
    guard found != expected else { return [] }
    return ["changes: \(found.map(\.description)), expected \(expected.map(\.description))"]
  }

  /// How the account's status history differs from `expectHistory` (empty when they match or
  /// nothing is expected).
  public func historyMismatches() -> [String] {
    guard let expected = expectHistory, let token = historyOf else { return [] }
    let found = StatusHistory.derive(
      token: token, catalog: catalog ?? .empty, options: view().options, events: events,
      through: asOf
    ).map(ExpectedEntry.init)
    guard found != expected else { return [] }
    return ["history: \(found.map(\.description)), expected \(expected.map(\.description))"]
  }

  /// The answer to ``metrics`` (nil without one).
  public func metricsReport() throws -> MetricsReport? {
    guard let metrics else { return nil }
    return try RevenueMetrics.report(of: events, for: try metrics.query(now: asOf))
  }

  /// The difference ``metrics`` asks for with `diffKnownAt` (nil without one).
  public func metricsDiff() throws -> MetricsDiff? {
    guard let metrics, let times = metrics.diffKnownAt, times.count == 2 else { return nil }
    return try RevenueMetrics.diff(
      of: events, for: try metrics.query(now: asOf), knownAt: times[0], times[1])
  }

  /// How the metrics differ from `expectMetrics` and `expectMetricsDiff`.
  public func metricsMismatches() throws -> [String] {
    var found: [String] = []
    if let expected = expectMetrics, let report = try metricsReport() {
      let actual = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(report))
      found += expected.mismatches(in: actual).map { "metrics: \($0)" }
    }
    if let expected = expectMetricsDiff, let diff = try metricsDiff() {
      let actual = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(diff))
      found += expected.mismatches(in: actual).map { "metrics diff: \($0)" }
    }
    return found
  }

  /// How the snapshot differs from `expect` (empty when it matches or nothing is expected).
  public func mismatches(of snapshot: LedgerSnapshot) throws -> [String] {
    guard let expect else { return [] }
    let actual = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(snapshot))
    return expect.mismatches(in: actual)
  }
}

/// A scenario that could not be read, with the place: `events[3].transaction.expiresDate`.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
  public var message: String

  public init(message: String) {
    self.message = message
  }

  init(_ error: DecodingError) {
    switch error {
    case .keyNotFound(let key, let context):
      message = "\(Self.path(context.codingPath + [key])): missing"
    case .typeMismatch(let type, let context):
      message = "\(Self.path(context.codingPath)): expected \(Self.name(of: type))"
    case .valueNotFound(let type, let context):
      message = "\(Self.path(context.codingPath)): expected \(Self.name(of: type)), found null"
    case .dataCorrupted(let context):
      message =
        context.codingPath.isEmpty
        ? "not valid JSON" : "\(Self.path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      message = "not a scenario"
    }
  }

  public var description: String { message }

  static func path(_ keys: [any CodingKey]) -> String {
    keys.reduce(into: "") { path, key in
      if let index = key.intValue,
        key.stringValue.hasPrefix("Index") || key.stringValue == "\(index)"
      {
        path += "[\(index)]"
      } else {
        path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
  }

  private static func name(of type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is Int64.Type, is Int32.Type, is Int.Type, is Double.Type, is Timestamp.Type: "a number"
    default: "\(type)"
    }
  }
}
