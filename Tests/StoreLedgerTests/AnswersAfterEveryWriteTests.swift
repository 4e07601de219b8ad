import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// After every write, every account's answer equals the fold of its events in the log, while a
/// projector fills stored views and the in-memory cache beside it. The writes mix what Apple
/// sends for purchases made with and without an appAccountToken: purchases, renewals, refunds
/// (none of which names an account when the purchase had no token) and the backend's links of
/// a purchase to one account, or its transfers to a second one.
@Suite(.enabled(if: TestDatabase.shouldRun), .serialized)
struct AnswersAfterEveryWriteTests {
  typealias F = LedgerFixtures

  struct Chain {
    let original: String
    let token: String?
    var latest: String
    var renewals = 0
  }

  static let accounts = (1...4).map { F.account(900 + $0) }

  @Test(arguments: [true, false])
  func everyAnswerIsTheFoldOfTheLog(groupCommit: Bool) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let signal = WakeUpSignal()
        let ledger = try Ledger(
          client: client,
          configuration: LedgerConfiguration(
            bundleId: "com.example.app", environments: [.sandbox],
            trustedRoots: AccountViewTests.pki.trustedRoots, catalog: AccountViewTests.catalog,
            groupCommit: groupCommit),
          logger: TestDatabase.logger, wakeUp: signal)
        let projector = AccountProjector(
          ledger: ledger, wakeUp: signal, pollInterval: .milliseconds(20),
          logger: TestDatabase.logger)
        let running = Task { await projector.run() }
        defer { running.cancel() }
        var scenario = Scenario(ledger: ledger, random: SeededRandom(seed: groupCommit ? 31 : 37))
        for step in 0..<80 {
          let what = try await scenario.step(day: Double(step))
          for account in Self.accounts {
            let at = F.t(Double(step) + 0.5)
            let answered = try await ledger.summary(for: account, at: at.date)
            let folded = AccountSummary(
              try await ledger.view(for: account, consistency: .exact), for: account, at: at)
            #expect(
              answered.entitlements == folded.entitlements
                && answered.subscriptions == folded.subscriptions,
              "step \(step) (\(what)): \(account) answers \(answered.entitlements.map(\.active)), the log \(folded.entitlements.map(\.active))"
            )
          }
        }
        #expect(scenario.written > 60)
      }
    }
  }

  /// Random writes over six purchase chains, each day one.
  struct Scenario {
    let ledger: Ledger
    var random: SeededRandom
    var chains: [Chain] = []
    var written = 0
    let signed = SignedFixtures(pki: AccountViewTests.pki)

    init(ledger: Ledger, random: SeededRandom) {
      self.ledger = ledger
      self.random = random
    }

    mutating func step(day: Double) async throws -> String {
      written += 1
      guard chains.count >= 6, random.chance(0.8) else { return try await buy(day: day) }
      let index = Int(random.next() % UInt64(chains.count))
      switch random.next() % 3 {
      case 0: return try await renew(index, day: day)
      case 1: return try await refund(index, day: day)
      default: return try await link(index, day: day)
      }
    }

    private mutating func buy(day: Double) async throws -> String {
      let original = "77\(chains.count)"
      let token =
        random.chance(0.5)
        ? AnswersAfterEveryWriteTests.accounts.randomElement(
          using: &random) : nil
      chains.append(Chain(original: original, token: token, latest: original))
      let transaction = F.transaction(
        original, purchased: day, expires: day + 30, token: token)
      if token == nil {
        _ = try await ledger.ingest(signedTransaction: try signed.transaction(transaction))
      } else {
        _ = try await ledger.ingest(
          notification: try signed.notification(
            .subscribed, .initialBuy, uuid: "buy-\(original)", transaction: transaction))
      }
      return "buy \(original) \(token == nil ? "without a token" : "with a token")"
    }

    private mutating func renew(_ index: Int, day: Double) async throws -> String {
      chains[index].renewals += 1
      let chain = chains[index]
      let id = "\(chain.original)-\(chain.renewals)"
      chains[index].latest = id
      _ = try await ledger.ingest(
        notification: try signed.notification(
          .didRenew, uuid: "renew-\(id)",
          transaction: F.transaction(
            id, original: chain.original, purchased: day, expires: day + 30,
            token: chain.token)))
      return "renew \(chain.original)"
    }

    private mutating func refund(_ index: Int, day: Double) async throws -> String {
      let chain = chains[index]
      _ = try await ledger.ingest(
        notification: try signed.notification(
          .refund, uuid: "refund-\(chain.latest)-\(day)",
          transaction: F.transaction(
            chain.latest, original: chain.original, purchased: day - 1, expires: day + 29,
            signed: day, token: chain.token, revoked: day, revocationType: .refundFull)))
      return "refund \(chain.latest)"
    }

    private mutating func link(_ index: Int, day: Double) async throws -> String {
      let chain = chains[index]
      let account = AnswersAfterEveryWriteTests.accounts.randomElement(using: &random)!
      _ = try await ledger.link(
        appAccountToken: account, originalTransactionId: chain.original, at: F.t(day).date,
        transfer: true)
      return "link \(chain.original) to \(account)"
    }
  }
}
