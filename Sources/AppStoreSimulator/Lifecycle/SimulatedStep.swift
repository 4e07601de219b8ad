import StoreLedgerCore

/// One thing the App Store does at one simulated time.
public struct SimulatedStep: Sendable {
  public enum Action: Sendable {
    /// A new or changed transaction of the customer.
    case put(JWSTransactionDecodedPayload)
    /// A subscription's renewal info (and the status Apple reports from now on).
    case renewal(JWSRenewalInfoDecodedPayload, status: SubscriptionStatus)
    /// A V2 notification about the transaction as the store holds it then.
    case notify(
      NotificationType, NotificationSubtype?, transactionId: String, status: SubscriptionStatus?)
    /// A parent withdrew consent for the customer's download (`RESCIND_CONSENT`, `appData`).
    case rescindConsent(appTransactionId: String)
    /// A notification of a type and body object no release knows yet, naming no app: what
    /// Apple adds next (`UNCLAIM_SEATS` was one).
    case futureNotification(type: String, body: String)
  }

  public let time: Timestamp
  public let customer: String
  public let action: Action
}
