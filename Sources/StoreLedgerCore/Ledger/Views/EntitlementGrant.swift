/// One source's claim on an entitlement of an account at a time.
struct EntitlementGrant {
  var appAccountToken: String
  var entitlement: String
  var active: Bool
  var expiresDate: Timestamp?
  var source: String
  var rule: EntitlementRule
  var environment: String?
  /// The download the granting purchase was made from, when Apple signed it.
  var appTransactionId: String? = nil
  /// Nil unless asked for (``LedgerView/grants(at:explained:)``).
  var explanation: Explanation?

  /// Which of two grants decides the entitlement: an active one over an inactive one, then the
  /// one that lasts longer (no end lasts longest), then the greater transaction id.
  func decides(over other: EntitlementGrant) -> Bool {
    if active != other.active { return active }
    let mine = expiresDate?.milliseconds ?? (active ? .max : .min)
    let theirs = other.expiresDate?.milliseconds ?? (other.active ? .max : .min)
    if mine != theirs { return mine > theirs }
    return source > other.source
  }

  var view: EntitlementView {
    EntitlementView(
      appAccountToken: appAccountToken, entitlement: entitlement, active: active,
      expiresDate: expiresDate, source: source, rule: rule.rawValue, environment: environment)
  }
}
