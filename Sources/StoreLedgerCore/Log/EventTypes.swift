/// Every event type the log holds, in one table: what a row's `event_type` may be, and how the
/// row is read. A type is never renamed or reused once rows carry it; a new form of an event
/// gets a new version and the old one stays readable.
public enum EventTypes {
  /// How rows of a type are read.
  public enum Family: Sendable, Hashable {
    /// The payload is a ledger event's facts (`LedgerEvent.Body`), Apple's claims beside them.
    case facts
    /// Facts stored before they held `PriceTerms`: the same shape without those members.
    case factsWithoutTerms
    /// Apple's claims as the payload, from before facts were stored: read through the upcaster.
    case claims
    /// A refund request's step (`ConsumptionEvent`): its account's changes show it, no fold
    /// reads it.
    case refundRequest
    /// What the ledger did at Apple or for support (an order looked up, an offer signed, …):
    /// evidence that explains, folds nothing.
    case record
    /// The log's own bookkeeping (how far a replay got).
    case bookkeeping
  }

  // Apple's data, as facts.
  public static let notification = "appstore.notification.v3"
  public static let transaction = "appstore.transaction.v3"
  public static let renewalInfo = "appstore.renewal_info.v3"
  public static let status = "appstore.status.v3"
  // The backend's commands and the seats of group subscriptions.
  public static let debit = "ledger.consumable_debited.v1"
  public static let link = "ledger.account_linked.v1"
  public static let seat = "ledger.seat.v1"
  // An operator's grant of an entitlement (StoreLedger's own, never Apple's evidence).
  public static let grant = "ledger.grant.v1"
  // Older forms of Apple's data.
  public static let notificationWithoutTerms = "appstore.notification.v2"
  public static let transactionWithoutTerms = "appstore.transaction.v2"
  public static let renewalInfoWithoutTerms = "appstore.renewal_info.v2"
  public static let statusWithoutTerms = "appstore.status.v2"
  public static let notificationClaims = "appstore.notification.v1"
  public static let transactionClaims = "appstore.transaction.v1"
  public static let renewalInfoClaims = "appstore.renewal_info.v1"
  public static let statusClaims = "appstore.status.v1"
  // A refund request's steps.
  public static let refundRequested = "ledger.consumption_requested.v1"
  public static let refundSending = "ledger.consumption_sending.v1"
  public static let refundAnswered = "ledger.consumption_answered.v1"
  public static let refundAttemptFailed = "ledger.consumption_attempt_failed.v1"
  public static let refundClosed = "ledger.consumption_closed.v1"
  // Records of what the ledger did.
  public static let orderLookedUp = "ledger.order_looked_up.v1"
  public static let renewalExtensionRequested = "ledger.renewal_extension_requested.v1"
  public static let promotionalOfferSigned = "ledger.promotional_offer_signed.v1"
  public static let requestSigned = "ledger.request_signed.v1"
  public static let transactionFinished = "ledger.transaction_finished.v1"
  public static let webhookChecked = "ledger.webhook_checked.v1"
  public static let receiptImported = "ledger.receipt_imported.v1"
  /// The customer's refund consent as the app recorded it (``RefundConsent``).
  public static let refundConsent = "ledger.refund_consent.v1"
  /// An erasure of accounts' personal data: who asked, why, what it covers (no personal data).
  public static let accountErased = "ledger.account_erased.v1"
  /// A relay target added or removed (``RelayTargetRecord``), and each attempt to relay a
  /// notification to it (``RelayAttempt``).
  public static let relayTarget = "ledger.relay_target.v1"
  public static let relayAttempted = "ledger.relay_attempted.v1"
  // Bookkeeping.
  public static let replayRevision = "replay.revision.v1"

  /// Every type, with its family.
  public static let families: [String: Family] = [
    notification: .facts, transaction: .facts, renewalInfo: .facts, status: .facts,
    debit: .facts, link: .facts, seat: .facts, grant: .facts,
    notificationWithoutTerms: .factsWithoutTerms, transactionWithoutTerms: .factsWithoutTerms,
    renewalInfoWithoutTerms: .factsWithoutTerms, statusWithoutTerms: .factsWithoutTerms,
    notificationClaims: .claims, transactionClaims: .claims, renewalInfoClaims: .claims,
    statusClaims: .claims,
    refundRequested: .refundRequest, refundSending: .refundRequest,
    refundAnswered: .refundRequest, refundAttemptFailed: .refundRequest,
    refundClosed: .refundRequest,
    orderLookedUp: .record, renewalExtensionRequested: .record, promotionalOfferSigned: .record,
    requestSigned: .record, transactionFinished: .record, webhookChecked: .record,
    receiptImported: .record, refundConsent: .record, accountErased: .record,
    relayTarget: .record, relayAttempted: .record,
    replayRevision: .bookkeeping,
  ]

  /// The types of `family`.
  public static func types(of family: Family) -> Set<String> {
    Set(families.filter { $0.value == family }.keys)
  }

  /// The family of `type`; nil for a type this release does not know.
  public static func family(of type: String) -> Family? { families[type] }
}
