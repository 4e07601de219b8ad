/// Explains an account's entitlements at a moment from the events known by then: Apple's
/// events signed (and the backend's commands issued) at or before the moment and, when
/// `knownAt` is given, recorded by StoreLedger by then. So an explanation never cites an
/// event from after the moment it speaks of, and cites the same answer the log gave then.
public struct AccountExplainer: Sendable {
  public let events: [LedgerEvent]
  public let catalog: ProductCatalog
  public let options: ProjectionOptions

  public init(
    events: [LedgerEvent], catalog: ProductCatalog = .empty, options: ProjectionOptions = .init()
  ) {
    self.events = events
    self.catalog = catalog
    self.options = options
  }

  /// The view of every event (what the account's other answers fold).
  public var view: LedgerView {
    LedgerView(LedgerState.fold(events), catalog: catalog, options: options)
  }

  /// Why `entitlement` is (in)active for the account at `time`, or the default "never held".
  public func explain(
    entitlement: String, for appAccountToken: String, at time: Timestamp,
    knownAt: Timestamp? = nil
  ) -> Explanation {
    Moment(self, at: time, knownAt: knownAt).explain(entitlement, for: appAccountToken)
  }

  /// Every entitlement of the catalog, and any other the account held by `time`, explained,
  /// by name.
  public func explainAll(
    for appAccountToken: String, at time: Timestamp, knownAt: Timestamp? = nil
  ) -> [Explanation] {
    let moment = Moment(self, at: time, knownAt: knownAt)
    var names = catalog.entitlementNames
    names.formUnion(moment.all.entitlements(for: appAccountToken, at: time).map(\.entitlement))
    return names.sorted().map { moment.explain($0, for: appAccountToken) }
  }

  /// Why subscription `originalTransactionId` has its status at `time`; nil before it began.
  public func explainSubscription(
    _ originalTransactionId: String, at time: Timestamp, knownAt: Timestamp? = nil
  ) -> Explanation? {
    Moment(self, at: time, knownAt: knownAt).explainSubscription(originalTransactionId)
  }

  /// The two folds an explanation at a moment compares: what had been signed by then, and
  /// everything (recorded by `knownAt`, when given).
  private struct Moment {
    let time: Timestamp
    let signed: LedgerView
    let all: LedgerView
    let carriers: [String: [EventReference]]

    init(_ explainer: AccountExplainer, at time: Timestamp, knownAt: Timestamp?) {
      self.time = time
      let recorded = knownAt.map(Knowledge.weKnew(at:))
      let everything = explainer.events.filter { recorded?.admits($0) ?? true }
      let signed = everything.filter { Knowledge.appleKnew(at: time).admits($0) }
      self.signed = LedgerView(
        LedgerState.fold(signed), catalog: explainer.catalog, options: explainer.options)
      self.all = LedgerView(
        LedgerState.fold(everything), catalog: explainer.catalog, options: explainer.options)
      self.carriers = AccountExplainer.carriers(everything)
    }

    /// From what was signed by then when that gives the log's answer (the rule); else from
    /// everything, the later-signed deciding events set apart and said.
    func explain(_ entitlement: String, for token: String) -> Explanation {
      let answer = Self.answer(all, entitlement, token, time)
      let explanation: Explanation?
      if Self.answer(signed, entitlement, token, time) == answer {
        explanation = signed.explainEntitlement(entitlement, for: token, at: time)
      } else {
        explanation = all.explainEntitlement(entitlement, for: token, at: time).map {
          AccountExplainer.signedLater($0, at: time)
        }
      }
      guard let explanation else { return LedgerView.neverHeld(entitlement, at: time) }
      return AccountExplainer.corroborated(explanation, carriers: carriers, by: time)
    }

    /// Whether the entitlement is active at the moment (nil: never held): what the answers
    /// must agree on. A later extension or renewal changes the end, not the answer then.
    func explainSubscription(_ id: String) -> Explanation? {
      let status = all.subscription(id, at: time)?.status
      let explanation =
        signed.subscription(id, at: time)?.status == status
        ? signed.explainSubscription(id, at: time)
        : all.explainSubscription(id, at: time).map { AccountExplainer.signedLater($0, at: time) }
      return explanation.map { AccountExplainer.corroborated($0, carriers: carriers, by: time) }
    }

    private static func answer(
      _ view: LedgerView, _ entitlement: String, _ token: String, _ time: Timestamp
    ) -> Bool? {
      view.entitlements(for: token, at: time).first { $0.entitlement == entitlement }?.active
    }
  }

  /// `explanation` with the deciding events signed after `time` moved to `signedLater`, here
  /// and in its sources, and the sentence saying so.
  static func signedLater(_ explanation: Explanation, at time: Timestamp) -> Explanation {
    var result = explanation
    let later = explanation.events.filter { ($0.signedDate ?? time) > time }
    result.events = explanation.events.filter { ($0.signedDate ?? time) <= time }
    result.signedLater = Explanation.ordered(later)
    result.because = explanation.because.map { signedLater($0, at: time) }
    let sources = result.because.flatMap(\.signedLater) + later
    if let first = sources.compactMap(\.signedDate).min() {
      result.sentence +=
        " (known from data Apple signed later, on \(ExplanationWording.day(first)), about this moment)"
    }
    return result
  }

  /// The events that carry each transaction, by `transactionId`.
  static func carriers(_ events: [LedgerEvent]) -> [String: [EventReference]] {
    var carriers: [String: [EventReference]] = [:]
    for event in events {
      guard let id = event.body.transactionFacts?.transactionId else { continue }
      carriers[id, default: []].append(event.reference)
    }
    return carriers
  }

  /// `explanation` with the other events signed by `time` that carry the transactions it
  /// cites.
  static func corroborated(
    _ explanation: Explanation, carriers: [String: [EventReference]], by time: Timestamp
  ) -> Explanation {
    var result = explanation
    let cited = Set(explanation.events + explanation.signedLater)
    let ids = Set((explanation.events + explanation.signedLater).compactMap(\.transactionId))
    result.corroborating = Explanation.ordered(
      ids.flatMap { carriers[$0] ?? [] }.filter {
        !cited.contains($0) && ($0.signedDate.map { $0 <= time } ?? false)
      })
    result.because = explanation.because.map { corroborated($0, carriers: carriers, by: time) }
    return result
  }
}
