/// The rules of reference §8.2, in the order they are tried (projections/subscription-status.md).
public enum StatusRule: String, Hashable, Sendable, Codable, CaseIterable {
  case revoked = "S1"
  case active = "S2"
  case gracePeriod = "S3"
  case billingRetry = "S4"
  case expired = "S5"

  public var status: SubscriptionStatus {
    switch self {
    case .revoked: .revoked
    case .active: .active
    case .gracePeriod: .billingGracePeriod
    case .billingRetry: .billingRetry
    case .expired: .expired
    }
  }

  public var summary: String {
    switch self {
    case .revoked:
      "S1: the current period's transaction is revoked (not reversed) at or before T"
    case .active: "S2: T is before the current period's expiresDate"
    case .gracePeriod:
      "S3: expired, the newest renewal info is in billing retry and T is before gracePeriodExpiresDate"
    case .billingRetry: "S4: expired and the newest renewal info is in billing retry"
    case .expired: "S5: expired, not in billing retry"
    }
  }
}
