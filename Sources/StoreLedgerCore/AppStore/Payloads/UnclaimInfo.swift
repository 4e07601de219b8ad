/// The `unclaimInfo` body of an `UNCLAIM_SEATS` notification (Notifications 2.23): seat claims
/// of a developer-hosted group subscription that the App Store has already released.
///
/// Apple's readable text names only `unclaimSeatIds`. Whether the object also carries the
/// app's identity (`bundleId`, `environment`, `appAppleId`) or the subscription's
/// `originalTransactionId` is not readable, so they are decoded when present and never
/// required; every other member is kept raw in the notification's signed JSON.
public struct UnclaimInfo: Hashable, Sendable, Codable {
  /// The `seatClaimId`s (UUIDs that Claim Seat returned) the App Store released.
  public var unclaimSeatIds: [String]?
  public var bundleId: String?
  public var environment: AppStoreEnvironment?
  public var appAppleId: Int64?
  public var originalTransactionId: String?

  public init(unclaimSeatIds: [String]? = nil) {
    self.unclaimSeatIds = unclaimSeatIds
  }
}
