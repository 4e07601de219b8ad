/// Operators' grants (rule E7): StoreLedger's own events, never Apple's evidence. A grant
/// decides an entitlement like any source (the longer-lasting active one wins), and says so
/// in its source (`grant:<grantId>`), its rule and its explanation.
extension LedgerView {
  /// The grants an operator gave by `time` (started, whether or not still in force), newest
  /// first.
  public func supportGrants(at time: Timestamp) -> [SupportGrantRecord] {
    state.supportGrants.values.filter {
      guard let started = $0.started else { return false }
      return started.occurredAt <= time
    }.sorted {
      ($0.started?.occurredAt ?? .init(milliseconds: 0), $0.grantId)
        > ($1.started?.occurredAt ?? .init(milliseconds: 0), $1.grantId)
    }
  }

  func supportGrantViews(at time: Timestamp) -> [SupportGrantView] {
    guard !state.supportGrants.isEmpty else { return [] }
    return state.supportGrants.values.compactMap { record -> SupportGrantView? in
      guard record.holds(at: time), let started = record.started else { return nil }
      return SupportGrantView(
        grantId: record.grantId, appAccountToken: started.appAccountToken,
        entitlement: started.entitlement, startsAt: started.startsAt ?? started.occurredAt,
        endsAt: record.endsAt, reason: started.reason, by: started.by, batch: started.batch)
    }.sorted { $0.grantId < $1.grantId }
  }

  func supportGrantClaims(at time: Timestamp, explained: Bool) -> [EntitlementGrant] {
    guard !state.supportGrants.isEmpty else { return [] }
    return state.supportGrants.values.sorted { $0.grantId < $1.grantId }.compactMap {
      record -> EntitlementGrant? in
      guard let started = record.started, started.occurredAt <= time else { return nil }
      let active = record.holds(at: time)
      // An end recorded after `time` was not known then.
      let ended = record.ended.flatMap { $0.occurredAt <= time ? $0 : nil }
      let end =
        [started.endsAt, ended?.occurredAt].compactMap { $0 }.min()
      return EntitlementGrant(
        appAccountToken: started.appAccountToken, entitlement: started.entitlement,
        active: active, expiresDate: end, source: "grant:\(record.grantId)", rule: .supportGrant,
        environment: nil,
        explanation: explained
          ? supportGrantExplanation(record, started, ended: ended, active: active, at: time) : nil)
    }
  }

  private func supportGrantExplanation(
    _ record: SupportGrantRecord, _ started: SupportGrantEvent, ended: SupportGrantEvent?,
    active: Bool, at time: Timestamp
  ) -> Explanation {
    var events = [record.startSource].compactMap { $0 }
    let from = started.startsAt ?? started.occurredAt
    let until = started.endsAt.map { " until \(ExplanationWording.day($0))" } ?? " until ended"
    let given =
      "\(started.by.isEmpty ? "An operator" : started.by) granted \(started.entitlement) on "
      + "\(ExplanationWording.day(started.occurredAt)) (a StoreLedger grant, not an App Store "
      + "purchase): \(started.reason)"
    var sentence = given
    var answer: String
    if active {
      answer = "entitled: the grant holds from \(ExplanationWording.day(from))\(until)"
    } else if let ended, ended.occurredAt <= time {
      events.append(contentsOf: [record.endSource].compactMap { $0 })
      answer = "not entitled: the grant was ended on \(ExplanationWording.day(ended.occurredAt))"
      sentence +=
        "; \(ended.by.isEmpty ? "an operator" : ended.by) ended it on "
        + "\(ExplanationWording.day(ended.occurredAt)): \(ended.reason)"
    } else if time < from {
      answer = "not entitled: the grant starts on \(ExplanationWording.day(from))"
      sentence += "; it starts on \(ExplanationWording.day(from))"
    } else {
      answer = "not entitled: the grant ran out\(until)"
      sentence += "; it ran\(until)"
    }
    return Explanation(
      subject: "grant \(record.grantId)", answer: answer, sentence: sentence,
      rule: EntitlementRule.supportGrant.summary, events: events)
  }
}
