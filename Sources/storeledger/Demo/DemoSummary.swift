import Foundation
import StoreLedger
import StoreLedgerCore

/// What the demo found, printed as tables or JSON.
struct DemoSummary: Codable, Sendable {
  struct Stage: Codable, Sendable {
    var name: String
    var seconds: Double
    var detail: String
  }
  struct Balance: Codable, Sendable {
    var productId: String
    var accounts = 0
    var purchased: Int64 = 0
    var refunded: Int64 = 0
    var debited: Int64 = 0
    var balance: Int64 = 0
  }
  struct Throughput: Codable, Sendable {
    var count: Int
    var seconds: Double
    var perSecond: Double { seconds > 0 ? Double(count) / seconds : 0 }
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?
  }

  /// How StoreLedger's answers at the end compare with the simulator's own truth.
  struct Truth: Codable, Sendable {
    /// Accounts compared (customers whose app set a token).
    var accounts = 0
    /// Accounts whose every subscription status, product and entitlement agree.
    var agree = 0
    /// One line per disagreement.
    var disagreements: [String] = []
  }

  /// Refund requests played live after the simulated months.
  struct Consumption: Codable, Sendable {
    var received = 0
    var answered = 0
    /// Accepted by Apple after the 12-hour deadline.
    var late = 0
    /// Apple's decisions after the answers.
    var refunded = 0
    var declined = 0
    var expired = 0
    var failed = 0
    /// Requests Apple sent during the simulated months, expired before any worker ran.
    var simulatedYear = 0
  }

  /// Renewal-date extensions asked of Apple.
  struct Extensions: Codable, Sendable {
    var requested = 0
    var succeeded: Int64 = 0
    var failed: Int64 = 0
    /// Apple's RENEWAL_EXTENSION / SUMMARY notifications the log holds for them.
    var summariesStored = 0
  }

  struct OrderLookups: Codable, Sendable {
    var asked = 0
    var answer = ""
  }

  /// The other calls on Apple the demo makes.
  struct Checks: Codable, Sendable {
    /// Request a Test Notification reached the webhook and the log stored it.
    var webhookCheckPassed = false
    var offerEligibilityChecked = 0
    var offersSigned = 0
  }

  /// The change feed: changes derived from the log, and the distinct ones the demo's
  /// receiver accepted (signature checked) through the webhook delivery.
  /// Apple's notifications relayed to a staging backend that fails now and then.
  struct Relayed: Codable, Sendable {
    var target = "staging"
    /// Notifications the target accepted (the relay's count) and distinct bodies it got.
    var delivered = 0
    var accepted = 0
    /// Requests the target got, and those it failed.
    var requests = 0
    var failed = 0
    /// Notifications waiting or retrying when the demo stopped waiting, and dead letters.
    var pending = 0
    var dead = 0
    /// Attempts recorded in the log (one per request).
    var attemptsInLog = 0
  }

  struct Changes: Codable, Sendable {
    var derived = 0
    var delivered = 0
    var requests = 0
    var badSignatures = 0
  }

  /// Group subscriptions with developer-hosted invitations, their seats and members.
  struct Seats: Codable, Sendable {
    var groups = 0
    /// Groups entitled at the end.
    var active = 0
    var seatsInForce = 0
    /// Seats the backend claimed for members (Claim Seat).
    var claimed = 0
    /// Claims the App Store released (UNCLAIM_SEATS).
    var unclaimedByApple = 0
    /// Members compared with the simulator's truth, and those who agree.
    var members = 0
    var membersAgree = 0
    var disagreements: [String] = []
  }

  /// Who entered billing retry in the year's last 7 days (Apple's clock): the ledger's list
  /// beside the simulated store's books, after each stage that brings the year's data.
  struct BillingRetry: Codable, Sendable {
    var from: Int64 = 0
    var before: Int64 = 0
    var stages: [Stage] = []

    struct Stage: Codable, Sendable {
      /// `year` (played through the webhook), `replay`, `recovery`.
      var after: String
      var listed: Int
      var books: Int
      /// Entries one side has and the other has not.
      var apart: Int
      /// Of the books' entries the ledger lacks, those whose news was lost on the way.
      var unheard: Int
    }
  }

  /// A bulk grant to everyone who entered billing retry in a declared outage.
  struct Grants: Codable, Sendable {
    /// The outage window on Apple's clock (the year's last 30 days), Unix ms.
    var outageFrom: Int64 = 0
    var outageBefore: Int64 = 0
    /// Accounts whose subscription entered billing retry in it, and as many by the books.
    var enteredBillingRetry = 0
    var booksAccounts = 0
    var granted = 0
    var refused = 0
    /// The same bulk grant run again: granted anew (0) and found already granted.
    var grantedAgain = 0
    var alreadyGranted = 0
    /// Granted accounts that hold the entitlement a second later.
    var entitled = 0
  }

  var customers: Int
  var months: Int
  var seed: UInt64
  /// The instant every answer is given at: the simulation's end, Unix ms.
  var asOf: Int64
  var accounts = 0
  /// Subscriptions of the accounts by status, "1"…"5".
  var subscriptionsByStatus: [String: Int] = [:]
  /// Accounts entitled, by entitlement.
  var entitlements: [String: Int] = [:]
  var consumables: [Balance] = []
  /// Revocations in force (not reversed), by Apple's revocationReason ("0", "1", or "none").
  var revocations: [String: Int] = [:]
  var reversedRevocations = 0
  var events = 0
  var streams = 0
  var notifications = 0
  var delivered = 0
  var dropped = 0
  var replayAppended = 0
  var recoveryAppended = 0
  var ingest: Throughput?
  var queries: Throughput?
  var auditConsistent = false
  var auditProblems = 0
  var auditEvents = 0
  var auditSignatures = 0
  var auditAccounts = 0
  var stages: [Stage] = []
  var truth = Truth()
  /// StoreLedger's revenue metrics against the simulated store's own books.
  var metrics = DemoRevenue.Summary()
  var consumption = Consumption()
  /// Customers moved from StoreKit 1 receipts (new to the ledger or already known, linked).
  var migratedReceipts = 0
  /// The simulator's customers that became accounts from their receipts (compared with the
  /// truth like the others).
  var migratedCustomers: [String] = []
  /// Why receipts failed to migrate, one line each.
  var receiptFailures: [String] = []
  var extensions = Extensions()
  var orderLookups = OrderLookups()
  var checks = Checks()
  var changes = Changes()
  var seats = Seats()
  var grants = Grants()
  var billingRetry = BillingRetry()
  var relayed = Relayed()
  /// Verified notifications naming no app this release can read (kept as evidence).
  var unrouted = 0
  /// Notifications stored that this release does not understand (unrouted included).
  var notUnderstood = 0

  /// ", N of them unheard: …" when entries are apart because their news was lost.
  static func unheard(_ stage: BillingRetry.Stage) -> String {
    stage.unheard == 0
      ? "" : ", \(stage.unheard) of them unheard: their notifications were lost on the way"
  }

  /// "entered in the year's last 7 days: 12 listed after the year (books 12, 0 apart), …".
  var billingRetryLine: String {
    guard !billingRetry.stages.isEmpty else { return "not asked" }
    let stages = billingRetry.stages.enumerated().map { index, stage in
      index == 0
        ? "\(stage.listed) listed after the \(stage.after) (books \(stage.books), "
          + "\(stage.apart) apart\(Self.unheard(stage)))"
        : "\(stage.listed) after the \(stage.after) (\(stage.apart) apart\(Self.unheard(stage)))"
    }
    return "entered in the year's last \(DemoBillingRetry.days) days: "
      + stages.joined(separator: ", ")
  }

  /// Adds one account's state at `asOf`.
  mutating func add(_ snapshot: LedgerSnapshot) {
    accounts += 1
    for subscription in snapshot.subscriptions {
      subscriptionsByStatus[String(subscription.status), default: 0] += 1
    }
    for name in Set(snapshot.entitlements.filter(\.active).map(\.entitlement)) {
      entitlements[name, default: 0] += 1
    }
    for consumable in snapshot.consumables {
      var balance =
        consumables.first { $0.productId == consumable.productId }
        ?? Balance(productId: consumable.productId)
      balance.accounts += 1
      balance.purchased += consumable.purchased
      balance.refunded += consumable.refunded
      balance.debited += consumable.debited
      balance.balance += consumable.balance
      consumables.removeAll { $0.productId == consumable.productId }
      consumables.append(balance)
    }
    consumables.sort { $0.productId < $1.productId }
    for revocation in snapshot.revocations {
      if revocation.reversed {
        reversedRevocations += 1
      } else {
        revocations[revocation.revocationReason.map(String.init) ?? "none", default: 0] += 1
      }
    }
  }

  static let statusNames = [
    "1": "active", "2": "expired", "3": "billing retry", "4": "grace period", "5": "revoked",
  ]

  /// Revenue by currency, and how it compares with the store's books.
  var revenueLine: String {
    let byCurrency = metrics.currencies.map { currency in
      "\(currency) gross \(MetricsText.amount(metrics.grossRevenue[currency] ?? 0)), net "
        + "\(MetricsText.amount(metrics.netRevenue[currency] ?? 0)), proceeds (est.) "
        + "\(MetricsText.amount(metrics.estimatedProceeds[currency] ?? 0)), MRR at the end "
        + "\(MetricsText.amount(metrics.mrr[currency] ?? 0))"
    }.joined(separator: "; ")
    return "\(byCurrency.isEmpty ? "none" : byCurrency) over \(metrics.months) months; "
      + "\(metrics.trialStarts) trials, \(metrics.trialConversions) converted, "
      + "\(metrics.churned) churned; \(metrics.compared - metrics.differences.count) of "
      + "\(metrics.compared) figures agree with the simulated store's books"
  }

  func text() -> String {
    let instant = ISO8601DateFormatter().string(from: Timestamp(milliseconds: asOf).date)
    var out: [String] = []
    var statuses = TextTable(
      title: "\nSubscriptions of \(accounts.grouped) accounts by status at \(instant)",
      header: ["status", "subscriptions"])
    for code in ["1", "2", "3", "4", "5"] {
      statuses.rows.append(
        ["\(code) \(Self.statusNames[code]!)", (subscriptionsByStatus[code] ?? 0).grouped])
    }
    out.append(statuses.render())
    var entitled = TextTable(title: "Entitlements", header: ["entitlement", "accounts entitled"])
    for (name, count) in entitlements.sorted(by: { $0.key < $1.key }) {
      entitled.rows.append([name, count.grouped])
    }
    out.append(entitled.render())
    var balances = TextTable(
      title: "Consumable balances",
      header: ["product", "accounts", "purchased", "refunded", "debited", "balance"])
    for balance in consumables {
      balances.rows.append([
        balance.productId, balance.accounts.grouped, "\(balance.purchased)", "\(balance.refunded)",
        "\(balance.debited)", "\(balance.balance)",
      ])
    }
    out.append(balances.render())
    var revoked = TextTable(
      title: "Revocations in force (\(reversedRevocations) more were reversed)",
      header: ["revocationReason", "purchases"])
    for (reason, count) in revocations.sorted(by: { $0.key < $1.key }) {
      let name = ["0": "0 other", "1": "1 app issue"][reason] ?? reason
      revoked.rows.append([name, count.grouped])
    }
    out.append(revoked.render())
    out.append(figures())
    return out.joined(separator: "\n")
  }

  private func figures() -> String {
    func rate(_ throughput: Throughput?) -> String {
      guard let throughput else { return "-" }
      var text = "\(Int(throughput.perSecond).grouped)/s"
      if let p50 = throughput.p50Milliseconds, let p99 = throughput.p99Milliseconds {
        text += String(format: " (p50 %.1f ms, p99 %.1f ms)", p50, p99)
      }
      return text
    }
    let verdict =
      auditConsistent
      ? "consistent: \(auditEvents.grouped) events in intact hash chains, "
        + "\(auditSignatures.grouped) Apple signatures re-verified, \(auditAccounts.grouped) "
        + "account views equal to the log"
      : "\(auditProblems) problems (run storeledger audit for the list)"
    return """
      Events stored      \(events.grouped) in \(streams.grouped) streams
      Notifications      \(notifications.grouped) sent by the App Store, \(delivered.grouped) \
      delivered, \(dropped.grouped) lost on the way
      Repaired           \(replayAppended.grouped) events by replay, \
      \(recoveryAppended.grouped) by notification recovery
      Ingest             \(rate(ingest)) through the webhook (\(ingest?.count.grouped ?? "0") \
      notifications stored while the year was played)
      Queries            \(rate(queries)) entitlement queries over HTTP
      Refund requests    \(consumption.received) received, \(consumption.answered) answered \
      (\(consumption.late) late, \(consumption.expired) expired, \(consumption.failed) failed); \
      Apple refunded \(consumption.refunded) and declined \(consumption.declined); \
      \(consumption.simulatedYear) more were asked in the simulated months, before the worker \
      ran, and their 12 hours had passed: not answerable, so not counted as missed
      Write side         \(migratedReceipts) customers migrated from receipts; \
      \(extensions.succeeded) renewal dates extended (\(extensions.failed) not eligible, \
      summary \(extensions.summariesStored > 0 ? "stored" : "missing")); order lookup: \
      \(orderLookups.answer); webhook check \(checks.webhookCheckPassed ? "passed" : "FAILED"); \
      offers: \(checks.offerEligibilityChecked) accounts checked, \(checks.offersSigned) signed
      Changes            \(changes.derived.grouped) derived, \(changes.delivered.grouped) delivered \
      to the demo's receiver (\(changes.requests.grouped) requests, \(changes.badSignatures) bad \
      signatures)
      Seats              \(seats.groups) group subscriptions with developer-hosted invitations \
      (\(seats.active) active, \(seats.seatsInForce) seats): \(seats.claimed) claimed for members, \
      \(seats.unclaimedByApple) released by the App Store; \(seats.membersAgree) of \(seats.members) \
      members agree with the truth
      Billing retry      \(billingRetryLine)
      Grants             \(grants.granted) accounts granted a week of pro after an outage over the \
      year's last 30 days \
      (\(grants.enteredBillingRetry) entered billing retry in it, the books say \
      \(grants.booksAccounts); \(grants.entitled) hold pro now); \
      the same bulk grant again granted \(grants.grantedAgain)
      Relayed            \(relayed.delivered.grouped) notifications relayed to a staging backend \
      that failed \(relayed.failed.grouped) of \(relayed.requests.grouped) requests; \
      \(relayed.attemptsInLog.grouped) attempts in the log, \(relayed.dead) dead letters
      Not understood     \(notUnderstood) notifications stored without being understood, \
      \(unrouted) of them naming no app (unrouted evidence, granting nothing)
      Audit              \(verdict)
      Truth              \(truth.agree.grouped) of \(truth.accounts.grouped) accounts agree with the \
      simulator's truth (status, product, entitlements), \(truth.disagreements.count) disagreements
      Revenue            \(revenueLine)

      """
  }
}
