/// Withdrawn consent (`RESCIND_CONSENT`, reference §2.6 and §5.3; projections/entitlements.md
/// rule E6).
extension LedgerView {
  /// The downloads whose consent was withdrawn by `time`.
  func consentViews(at time: Timestamp) -> [ConsentView] {
    guard !state.consentRescissions.isEmpty else { return [] }
    return state.consentRescissions.values
      .filter { ($0.rescindedAt ?? time) <= time }
      .map { record in
        let chains = Set(
          state.transactions.values.filter { $0.facts.appTransactionId == record.appTransactionId }
            .map(\.facts.originalTransactionId))
        let accounts = chains.compactMap { chain in
          accountToken(
            ofChain: chain,
            records: state.transactions.values.filter { $0.facts.originalTransactionId == chain })
        }
        return ConsentView(
          appTransactionId: record.appTransactionId, rescindedAt: record.rescindedAt,
          accounts: Array(Set(accounts)).sorted(),
          endsEntitlements: options.rescindedConsentEndsEntitlements)
      }
      .sorted { $0.appTransactionId < $1.appTransactionId }
  }

  /// With the policy on, a grant from a download whose consent was withdrawn by `time` is
  /// inactive from then on, and its explanation says why.
  func applyingConsent(_ grants: [EntitlementGrant], at time: Timestamp, explained: Bool)
    -> [EntitlementGrant]
  {
    guard options.rescindedConsentEndsEntitlements, !state.consentRescissions.isEmpty else {
      return grants
    }
    return grants.map { grant in
      guard let download = grant.appTransactionId,
        let record = state.consentRescissions[download],
        let rescinded = record.rescindedAt, rescinded <= time
      else { return grant }
      var ended = grant
      ended.active = false
      ended.expiresDate = rescinded
      ended.rule = .consentRescinded
      if explained, let original = grant.explanation {
        ended.explanation = Explanation(
          subject: original.subject,
          answer: "not entitled: consent for download \(download) was withdrawn",
          sentence:
            "Consent was withdrawn on \(ExplanationWording.day(rescinded)) for the download this purchase belongs to; the rescinded-consent policy ends its access from then (\(original.sentence))",
          rule: EntitlementRule.consentRescinded.summary,
          events: original.events + [record.source])
      }
      return ended
    }
  }
}
