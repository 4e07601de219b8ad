import AppStoreServerAPI
import AppStoreVerification
import Crypto
import Foundation
import Logging
import StoreLedgerCore

/// Moves customers who only have StoreKit 1 receipts onto the ledger: each receipt gives a
/// transaction id (nothing in a receipt is trusted beyond that), the customer is replayed
/// from Transaction History v2 and All Subscription Statuses (signed, verified), and the
/// account token given with the receipt is linked here and at Apple. Each receipt's outcome is
/// recorded (key `receipt:<sha256>`), so a run cut short resumes where it stopped.
public struct ReceiptImport: Sendable {
  /// Replays each receipt's customer (one call after another).
  let replay: CustomerReplay
  /// Links the receipt's account token to the chains the replay found.
  let links: AccountLinks
  /// Records each receipt's outcome.
  let actions: AppleActions
  let log: any EventLog
  let support: any SupportReads
  let calls: StorageCalls
  public let client: AppStoreServerAPIClient
  public let environment: AppStoreEnvironment
  let logger: Logger

  /// One receipt to import: a base64 app receipt or legacy transaction receipt, and the
  /// customer's token when the backend knows it.
  public struct Item: Sendable, Hashable, Codable {
    public var receipt: String
    public var appAccountToken: String?

    public init(receipt: String, appAccountToken: String? = nil) {
      self.receipt = receipt
      self.appAccountToken = appAccountToken
    }

    /// `BASE64` or `BASE64 TOKEN` (whitespace between), or a JSON object with `receipt` and
    /// `appAccountToken`; nil for a blank line.
    public static func parse(line: String) -> Item? {
      let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !trimmed.isEmpty else { return nil }
      if trimmed.hasPrefix("{"),
        let item = try? JSONDecoder().decode(Item.self, from: Data(trimmed.utf8))
      {
        return item
      }
      let parts = trimmed.split(whereSeparator: \.isWhitespace).map(String.init)
      return Item(receipt: parts[0], appAccountToken: parts.count > 1 ? parts[1] : nil)
    }
  }

  public struct Outcome: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
      /// New to the ledger: the replay stored the customer's purchases.
      case migrated
      /// The ledger held every purchase already.
      case alreadyKnown
      /// Imported by an earlier run (resumed).
      case imported
      case failed
    }

    /// 1-based position of the receipt in the input.
    public var line: Int
    public var kind: Kind
    public var transactionId: String?
    public var linkedChains: [String]
    public var reason: String?
  }

  public struct Report: Sendable, Hashable, Codable {
    public var migrated = 0
    public var alreadyKnown = 0
    public var resumed = 0
    public var failed = 0
    public var outcomes: [Outcome] = []

    mutating func add(_ outcome: Outcome) {
      outcomes.append(outcome)
      switch outcome.kind {
      case .migrated: migrated += 1
      case .alreadyKnown: alreadyKnown += 1
      case .imported: resumed += 1
      case .failed: failed += 1
      }
    }
  }

  public func run(_ items: [Item], progress: @Sendable (Int, Int) -> Void = { _, _ in }) async
    -> Report
  {
    var report = Report()
    for (index, item) in items.enumerated() {
      report.add(await importOne(item, line: index + 1))
      progress(index + 1, items.count)
    }
    return report
  }

  func importOne(_ item: Item, line: Int) async -> Outcome {
    func failed(_ reason: String, _ id: String? = nil) -> Outcome {
      Outcome(line: line, kind: .failed, transactionId: id, linkedChains: [], reason: reason)
    }
    let receipt = item.receipt.filter { !$0.isWhitespace }
    let key =
      "receipt:" + SHA256.hash(data: Data(receipt.utf8)).map { String(format: "%02x", $0) }.joined()
    do {
      if try await storedEvent(withKey: key) != nil {
        return Outcome(
          line: line, kind: .imported, transactionId: nil, linkedChains: [], reason: nil)
      }
    } catch {
      return failed("the log could not be read (\(error.code)); run again")
    }
    let token: String?
    do {
      token = try item.appAccountToken.map { raw throws(LedgerError) in
        try AppAccountToken.checked(raw)
      }
    } catch {
      return failed("the appAccountToken is not a UUID")
    }
    guard let id = Self.transactionId(in: receipt) else {
      return failed(
        "not an app receipt or a transaction receipt in base64, or it holds no purchase")
    }
    do {
      let (replayed, originals) = try await replay.replayCustomer(from: id)
      guard replayed.rejected.isEmpty else {
        return failed(
          "Apple's data did not verify or store: \(replayed.rejected.keys.sorted())", id)
      }
      var linked: [String] = []
      if let token {
        // The replay names the id it started from with the chains it found; only chains
        // (original transaction ids, which have a stream) take a token.
        for original in originals.sorted()
        where
          !(try await log.readStreams(
            ["sub:\(environment.rawValue):\(original)"]
          ).isEmpty)
        {
          try await link(token, original)
          linked.append(original)
        }
      }
      let kind: Outcome.Kind = replayed.appended > 0 ? .migrated : .alreadyKnown
      let outcome = Outcome(
        line: line, kind: kind, transactionId: id, linkedChains: linked, reason: nil)
      try await recordReceiptImport(outcome, key: key)
      return outcome
    } catch let error as LedgerError {
      return failed(error.description, id)
    } catch let error as AppStoreAPIError {
      return failed("Apple: \(error.description)", id)
    } catch {
      return failed("the import failed; run again to resume", id)
    }
  }

  /// Links here and at Apple; a family member's access, for which Apple takes no token,
  /// is linked in the ledger only.
  private func link(_ token: String, _ original: String) async throws(LedgerError) {
    do {
      _ = try await links.link(
        appAccountToken: token, originalTransactionId: original, apple: client)
    } catch {
      guard error.appleErrorCode == 4_000_185 else { throw error }
      _ = try await links.link(appAccountToken: token, originalTransactionId: original)
    }
  }

  /// The transaction id an app receipt or a legacy transaction receipt names.
  static func transactionId(in receipt: String) -> String? {
    if let id = try? ReceiptTransactionIdentifier.fromAppReceipt(receipt) { return id }
    return (try? ReceiptTransactionIdentifier.fromLegacyTransactionReceipt(receipt)) ?? nil
  }
}

extension ReceiptImport {
  /// Where the event with `key` is stored, if the log holds it.
  public func storedEvent(withKey key: String) async throws(LedgerError) -> String? {
    let support = self.support
    return try await calls.run { try await support.event(withKey: key)?.streamId }
  }

  func recordReceiptImport(_ outcome: ReceiptImport.Outcome, key: String)
    async throws(LedgerError)
  {
    // The receipt itself is not stored: its digest names it.
    try await actions.recordAction(
      EventTypes.receiptImported, member: "receiptImported", body: outcome,
      stream: "receipts:\(key.suffix(64).prefix(2))", key: key)
  }
}
