/// The rules of reference §8.2, in the order they are tried (projections/subscription-status.md).
public enum StatusRule: String, Hashable, Sendable, Codable, CaseIterable {
  case appleReported = "S0"
  case revoked = "S1"
  case active = "S2"
  case gracePeriod = "S3"
  case billingRetry = "S4"
  case expired = "S5"

  public var status: SubscriptionStatus {
    switch self {
    case .appleReported: .active  // never read: an S0 answer carries Apple's own status
    case .revoked: .revoked
    case .active: .active
    case .gracePeriod: .billingGracePeriod
    case .billingRetry: .billingRetry
    case .expired: .expired
    }
  }

  public var summary: String {
    switch self {
    case .appleReported:
      "S0: the log holds no period that explains the status the App Store signed; its word decides until the end its fields give (1: renewalDate, 4: gracePeriodExpiresDate, 3: 60 days after renewalDate) or the next event"
    case .revoked:
      "S1: the current period's transaction is revoked (not reversed) at or before T"
    case .active: "S2: T is before the current period's expiresDate"
    case .gracePeriod:
      "S3: expired, the newest renewal info is in billing retry and T is before gracePeriodExpiresDate"
    case .billingRetry:
      "S4: expired, the newest renewal info is in billing retry and T is within 60 days of expiresDate (90 for a commitment plan)"
    case .expired: "S5: expired, not in billing retry (or its 60 days are over)"
    }
  }
}
