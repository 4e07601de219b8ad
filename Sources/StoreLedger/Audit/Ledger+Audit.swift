import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// Proves the log and the read models intact, reading the log page by page: every stream's
  /// hash chain and version sequence; every stored JWS verified again offline at its
  /// `signedDate` and compared with the stored payload; every current account view compared
  /// with the projection rebuilt from the log.
  public func audit(pageSize: Int = 500, now: Date = Date()) async throws(LedgerError)
    -> AuditReport
  {
    var report = AuditReport()
    do {
      let clock = ContinuousClock()
      report.hashChainSeconds = try await clock.measure {
        try await auditHashChain(into: &report)
      }.seconds
      report.signatureSeconds = try await clock.measure {
        try await auditSignatures(pageSize: pageSize, into: &report)
      }.seconds
      report.readModelSeconds = try await clock.measure {
        try await auditReadModels(pageSize: pageSize, now: now, into: &report)
      }.seconds
    } catch let error as LedgerError {
      throw error
    } catch {
      throw Self.mapped(error)
    }
    return report
  }

  private func auditHashChain(into report: inout AuditReport) async throws {
    let store = self.store
    let chain = try await withDatabase { try await store.checkHashChain() }
    report.eventsChecked = chain.checkedEvents
    if let mismatch = chain.firstMismatch {
      report.problems.append(
        .init(
          kind: .hashChain, subject: mismatch.streamId, streamVersion: mismatch.streamVersion,
          detail: mismatch.reason.rawValue))
    }
  }

  private func auditSignatures(pageSize: Int, into report: inout AuditReport) async throws {
    let store = self.store
    var position = FeedPosition.beginning
    while true {
      let after = position
      let page = try await withDatabase { try await store.readFeed(after: after, limit: pageSize) }
      guard let last = page.last else { return }
      for recorded in page where recorded.rawSigned != nil {
        if let problem = check(recorded) {
          report.problems.append(problem)
        } else {
          report.signaturesVerified += 1
        }
      }
      position = last.position
    }
  }

  /// Nil when the stored JWS verifies and says what the stored payload says.
  func check(_ recorded: RecordedEvent) -> AuditReport.Problem? {
    func problem(_ kind: AuditReport.Problem.Kind, _ detail: String) -> AuditReport.Problem {
      .init(
        kind: kind, subject: recorded.streamId, streamVersion: recorded.streamVersion,
        detail: detail)
    }
    guard let raw = recorded.rawSigned else { return nil }
    let stored: LedgerEvent
    do { stored = try LedgerRecord.ledgerEvent(recorded) } catch {
      return problem(.payload, "the stored payload does not decode")
    }
    do {
      let matches = try signedContent(raw, matches: stored.body)
      return matches ? nil : problem(.payload, "the stored payload differs from the signed data")
    } catch {
      return problem(.signature, "\(error.verificationCode ?? error.code.rawValue)")
    }
  }

  /// Verifies `raw` as the kind `body` is and compares the signed content with it.
  private func signedContent(_ raw: String, matches body: LedgerEvent.Body)
    throws(LedgerError) -> Bool
  {
    let claims: SignedDataKind.Claims
    do {
      claims = try SignedDataKind.claims(of: raw)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    switch body {
    case .notification(let stored):
      let verified = try verify(claims) { verifier throws(VerificationError) in
        try verifier.verifyNotification(raw)
      }
      let signed = verified.payload
      return stored.transaction == verified.transaction?.payload
        && stored.renewalInfo == verified.renewalInfo?.payload
        && stored.notification.notificationUUID == signed.notificationUUID
        && stored.notification.notificationType == signed.notificationType
        && stored.notification.subtype == signed.subtype
        && stored.notification.signedDate == signed.signedDate
    case .transaction(let stored):
      let verified = try verify(claims) { verifier throws(VerificationError) in
        try verifier.verifyTransaction(raw)
      }
      return stored.transaction == verified.payload
    case .renewalInfo(let stored):
      let verified = try verify(claims) { verifier throws(VerificationError) in
        try verifier.verifyRenewalInfo(raw)
      }
      return stored.renewalInfo == verified.payload
    case .status, .debit, .link:
      return true
    }
  }

  private func auditReadModels(pageSize: Int, now: Date, into report: inout AuditReport)
    async throws
  {
    let (client, logger) = (self.client, self.logger)
    var last = ""
    while true {
      let after = last
      let tokens = try await withDatabase {
        try await AccountViews.accounts(after: after, limit: pageSize, on: client, logger: logger)
      }
      guard let end = tokens.last else { return }
      let accounts = try await withDatabase {
        try await AccountViews.changesAndEvents(of: tokens, on: client, logger: logger)
      }
      for (token, account) in accounts.sorted(by: { $0.key < $1.key }) {
        try await compareView(of: token, account, now: now, into: &report)
      }
      last = end
    }
  }

  private func compareView(
    of token: String, _ account: (changes: Int64, events: [LedgerEvent]), now: Date,
    into report: inout AuditReport
  ) async throws {
    let (client, logger) = (self.client, self.logger)
    let stored = try await withDatabase {
      try await AccountViews.stored(token, on: client, logger: logger)
    }
    let instant = Timestamp(now)
    guard let stored, stored.changes == account.changes, stored.projectedChanges == account.changes,
      stored.projection == projection, stored.interval.contains(instant)
    else {
      report.accountsNotCurrent += 1
      return
    }
    report.accountsCompared += 1
    let view = LedgerView(
      LedgerState.fold(account.events), catalog: configuration.catalog,
      options: configuration.options)
    let rebuilt = try JSONDecoder().decode(
      JSONValue.self,
      from: try JSONEncoder().encode(AccountSummary(view, for: token, at: instant)))
    let live = stored.summaryJSON.flatMap {
      try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
    }
    for difference in JSONDifference.differences(live, rebuilt) {
      report.problems.append(
        .init(
          kind: .readModel, subject: token, field: difference.path, live: difference.live,
          rebuilt: difference.rebuilt, detail: "the live view differs from the log"))
    }
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
