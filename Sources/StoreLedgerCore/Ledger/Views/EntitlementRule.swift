/// How a source grants an entitlement (projections/entitlements.md).
public enum EntitlementRule: String, Hashable, Sendable, Codable, CaseIterable {
  case subscription = "E1"
  case nonConsumable = "E2"
  case nonRenewing = "E3"
  case consumable = "E4"
  case seat = "E5"
  case consentRescinded = "E6"
  case supportGrant = "E7"

  public var summary: String {
    switch self {
    case .subscription:
      "E1: an auto-renewable subscription grants while its status is entitled (1, 4; 3 if configured)"
    case .nonConsumable: "E2: a non-consumable grants from its purchase until revoked"
    case .nonRenewing:
      "E3: a non-renewing subscription grants from its purchase for the catalog's durationDays, until revoked"
    case .consumable: "E4: a consumable grants while the account's balance of it is above zero"
    case .seat:
      "E5: a seat claim of a developer-hosted group subscription grants the member the subscription's entitlements while the claim holds and the subscription is entitled"
    case .consentRescinded:
      "E6: with the rescinded-consent policy on, a RESCIND_CONSENT ends every entitlement of that download's purchases from its signedDate"
    case .supportGrant:
      "E7: an operator's grant (StoreLedger's own event, not Apple's evidence) grants its entitlement from its start until its end or until it is ended"
    }
  }
}
