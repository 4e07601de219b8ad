import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore
import Synchronization

/// The App Store's side of a simulated app: every customer's transactions and subscriptions,
/// a clock, and the test PKI that signs what it serves. The lifecycle generator writes into
/// it; the Server API reads from it. Thread-safe.
public final class SimulatedAppStore: Sendable {
  public let app: SimulatedApp
  public let signer: TestPKI
  let state = Mutex(State())

  struct State {
    var now = Timestamp(milliseconds: 0)
    /// When the last response was signed (see `servingTime`).
    var lastServed: Int64 = .min
    /// Bumped by every change to a transaction: the order Get Transaction History v2 calls
    /// "recently modified".
    var sequence: Int64 = 0
    var transactions: [String: StoredTransaction] = [:]
    /// Customer (Apple Account) by transaction id, for `{anyTransactionId}`.
    var owners: [String: String] = [:]
    var transactionsOfCustomer: [String: [String]] = [:]
    var subscriptions: [String: SimulatedSubscription] = [:]
    /// Every notification sent, in order.
    var notifications: [SimulatedNotification] = []
    /// Each notification's position in `notifications`, by notificationUUID: an attempt is
    /// recorded for every delivery, and a search through a year's notifications for each
    /// one cost the demo seconds.
    var notificationPositions: [String: Int] = [:]
    /// Renewal extensions by request identifier, and their times per subscription.
    var extensionsByRequest: [String: ExtendRenewalDateResponse] = [:]
    var extensionTimes: [String: [Int64]] = [:]
    /// Refund requests by transaction id, and every consumption answer received.
    var refundRequests: [String: RefundRequest] = [:]
    var consumptionAnswers: [ConsumptionAnswer] = []
    /// Tokens set with Set App Account Token, by originalTransactionId, and when.
    var tokensSet: [String: (token: String, at: Int64)] = [:]
    /// Mass extensions by "productId/requestIdentifier".
    var massExtensions: [String: MassExtendRenewalDateStatusResponse] = [:]
    /// Developer-hosted seat claims, by originalTransactionId.
    var seatBooks: [String: SeatBook] = [:]
    /// Claim Seat answers still to lose after the seat is taken (a fault Apple's network
    /// can cause: the claim is made, the answer never arrives).
    var lostClaimAnswers = 0
    /// Apple-hosted and organization groups: members' downloads by group id, and each
    /// customer's groups.
    var groupMembers: [String: [String]] = [:]
    var customerGroups: [String: [GroupEntry]] = [:]
    /// Transactions finished with Finish Transaction.
    var finished: Set<String> = []
    /// What the store charged and refunded.
    var books = RevenueBooks()
    /// Images, messages and default messages uploaded through the Retention Messaging API.
    var retention = RetentionMessages()
  }

  struct StoredTransaction {
    var payload: JWSTransactionDecodedPayload
    var modified: Int64
  }

  public init(app: SimulatedApp, signer: TestPKI, now: Timestamp) {
    self.app = app
    self.signer = signer
    state.withLock { $0.now = now }
  }

  /// The simulated clock: what signed payloads carry as `signedDate`.
  public var now: Timestamp { state.withLock { $0.now } }

  /// The latest instant the store has signed anything at: its clock, or the last response
  /// it served (each a millisecond after the one before).
  public var lastSigned: Timestamp {
    state.withLock { Timestamp(milliseconds: max($0.now.milliseconds, $0.lastServed)) }
  }

  public func advance(to time: Timestamp) {
    state.withLock { $0.now = max($0.now, time) }
  }

  /// Adds or replaces a transaction of `customer` (Apple stamps bundle, environment and the
  /// App Store's time on it); a replaced one moves to the end of the modification order.
  public func put(_ transaction: JWSTransactionDecodedPayload, customer: String) {
    guard let id = transaction.transactionId else { return }
    var stamped = transaction
    stamped.bundleId = app.bundleId
    stamped.environment = app.environment
    // One app download per Apple Account: every transaction of the customer names it.
    let appTransactionId = stamped.appTransactionId ?? Self.appTransactionId(of: customer)
    stamped.appTransactionId = appTransactionId
    state.withLock { state in
      state.owners[appTransactionId] = customer
      // A token set at Apple is on the period in force then and on every later one.
      if let original = stamped.originalTransactionId, let set = state.tokensSet[original],
        (stamped.purchaseDate?.milliseconds ?? .max) >= set.at
      {
        stamped.appAccountToken = set.token
      }
      state.sequence += 1
      if state.transactions[id] == nil {
        state.transactionsOfCustomer[customer, default: []].append(id)
      }
      state.books.enter(previous: state.transactions[id]?.payload, new: stamped, at: state.now)
      state.transactions[id] = StoredTransaction(payload: stamped, modified: state.sequence)
      state.owners[id] = customer
    }
  }

  /// What the store charged and refunded so far, by month and currency.
  public var books: RevenueBooks { state.withLock { $0.books } }

  public func put(_ subscription: SimulatedSubscription) {
    var stamped = subscription
    stamped.renewalInfo.environment = app.environment
    state.withLock { $0.subscriptions[subscription.originalTransactionId] = stamped }
  }

  public func transaction(_ id: String) -> JWSTransactionDecodedPayload? {
    state.withLock { $0.transactions[id]?.payload }
  }

  public func subscription(_ originalTransactionId: String) -> SimulatedSubscription? {
    state.withLock { $0.subscriptions[originalTransactionId] }
  }

  /// The customer's `appTransactionId`: a number of 16 digits, fixed per customer.
  public static func appTransactionId(of customer: String) -> String {
    var digest = StableDigest()
    digest.add("app-transaction:" + customer)
    return "7" + String(format: "%015llu", digest.value % 1_000_000_000_000_000)
  }

  /// The customer who owns `anyTransactionId` (a transaction's id or the customer's
  /// `appTransactionId`).
  public func customer(of anyTransactionId: String) -> String? {
    state.withLock { $0.owners[anyTransactionId] }
  }

  /// Every transaction of `customer` with its modification sequence, in that order.
  func history(of customer: String) -> [(payload: JWSTransactionDecodedPayload, modified: Int64)] {
    state.withLock { state in
      (state.transactionsOfCustomer[customer] ?? []).compactMap { id in
        state.transactions[id].map { ($0.payload, $0.modified) }
      }.sorted { $0.modified < $1.modified }
    }
  }

  /// The subscriptions of `customer`, by original transaction id.
  func subscriptions(of customer: String) -> [SimulatedSubscription] {
    state.withLock { state in
      let originals = Set(
        (state.transactionsOfCustomer[customer] ?? []).compactMap {
          state.transactions[$0]?.payload
        }.filter { $0.type == .autoRenewableSubscription }.compactMap(\.originalTransactionId))
      return originals.sorted().compactMap { state.subscriptions[$0] }
    }
  }

  func enqueue(_ notification: SimulatedNotification) {
    state.withLock { state in
      state.notificationPositions[notification.uuid] = state.notifications.count
      state.notifications.append(notification)
    }
  }

  /// Every notification sent so far, with its attempts, oldest first.
  public func notifications() -> [SimulatedNotification] {
    state.withLock { $0.notifications }
  }

  /// The notifications not yet delivered with at most `attempts` attempts, oldest first;
  /// filtered under the lock, so a deliverer polling every few milliseconds does not copy the
  /// whole year's notifications each time.
  func undelivered(attemptedAtMost attempts: Int) -> [SimulatedNotification] {
    state.withLock { state in
      state.notifications.filter { !$0.delivered && $0.attempts.count <= attempts }
    }
  }

  func extensionAnswer(_ requestIdentifier: String) -> ExtendRenewalDateResponse? {
    state.withLock { $0.extensionsByRequest[requestIdentifier] }
  }

  func extensions(of originalTransactionId: String) -> [Int64] {
    state.withLock { $0.extensionTimes[originalTransactionId] ?? [] }
  }

  func recordExtension(
    _ requestIdentifier: String, of originalTransactionId: String,
    _ response: ExtendRenewalDateResponse
  ) {
    state.withLock { state in
      state.extensionsByRequest[requestIdentifier] = response
      state.extensionTimes[originalTransactionId, default: []].append(state.now.milliseconds)
    }
  }

  func recordAttempt(_ uuid: String, _ result: SendAttemptResult, at time: Timestamp) {
    state.withLock { state in
      guard let index = state.notificationPositions[uuid] else { return }
      var attempt = SendAttemptItem()
      attempt.attemptDate = time
      attempt.sendAttemptResult = result
      state.notifications[index].attempts.append(attempt)
    }
  }

  /// Transaction `id` as the App Store would sign it now (what an app forwards).
  public func signedTransaction(_ id: String) -> String? {
    transaction(id).map(signed)
  }

  /// `payload` signed now, as the App Store serves it.
  func signed(_ payload: JWSTransactionDecodedPayload) -> String {
    var copy = payload
    copy.signedDate = servingTime()
    // Encoding a payload of plain values cannot fail.
    return try! signer.sign(copy)
  }

  func signed(_ renewal: JWSRenewalInfoDecodedPayload) -> String {
    var copy = renewal
    copy.signedDate = servingTime()
    return try! signer.sign(copy)
  }

  /// The moment a response is signed. Apple signs each response when it serves it, so two
  /// requests for the same facts never carry the same `signedDate`: each signature served is
  /// at least a millisecond after the one before (the simulated clock itself does not move).
  private func servingTime() -> Timestamp {
    state.withLock { state in
      state.lastServed = max(state.now.milliseconds, state.lastServed + 1)
      return Timestamp(milliseconds: state.lastServed)
    }
  }

  /// Whether `first` was bought before `second` (a missing date counts as the epoch): the
  /// order that finds a chain's newest period. Spelled out with its types: written inline in
  /// a chain of `map`, `filter` and `max`, the same comparison costs the type checker seconds.
  static func boughtBefore(
    _ first: JWSTransactionDecodedPayload, _ second: JWSTransactionDecodedPayload
  ) -> Bool {
    let firstDate: Int64 = first.purchaseDate?.milliseconds ?? 0
    let secondDate: Int64 = second.purchaseDate?.milliseconds ?? 0
    return firstDate < secondDate
  }
}
