import AppStoreVerification
import Foundation
import NIOCore
import StoreLedgerCore

extension LedgerMaintenance {
  /// Proves the log and the read models intact, reading the log page by page: every stream's
  /// hash chain and version sequence; every stored JWS verified again offline at its
  /// `signedDate` and compared with the stored payload; every current account view compared
  /// with the projection rebuilt from the log. Signatures are checked by `concurrency` tasks
  /// at once (every core by default).
  /// With `shard`, only its share of the streams and accounts: N processes with shares
  /// 0…N-1 audit the whole log between them (``AuditReport/combining(_:)`` makes one verdict).
  public func audit(
    pageSize: Int = 500, now: Date = Date(),
    concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, shard: WorkShard = .whole
  ) async throws(LedgerError) -> AuditReport {
    var report = AuditReport()
    report.shard = shard
    do {
      let clock = ContinuousClock()
      report.hashChainSeconds = try await clock.measure {
        try await auditHashChain(shard: shard, into: &report)
      }.seconds
      report.signatureSeconds = try await clock.measure {
        try await auditSignatures(
          pageSize: pageSize, concurrency: max(1, concurrency), shard: shard, into: &report)
      }.seconds
      report.readModelSeconds = try await clock.measure {
        try await auditReadModels(
          pageSize: pageSize, now: now, concurrency: max(1, concurrency), shard: shard,
          into: &report)
      }.seconds
    } catch let error as LedgerError {
      throw error
    } catch {
      throw LedgerStorage.mapped(error)
    }
    return report
  }

  private func auditHashChain(shard: WorkShard, into report: inout AuditReport) async throws {
    let chain = try await maintenance.checkHashChain(shard: shard)
    report.eventsChecked = chain.checkedEvents
    report.eventsErased = chain.erasedEvents
    report.grantEvents = chain.grantEvents
    report.relayEvents = chain.relayEvents
    if let mismatch = chain.firstMismatch {
      report.problems.append(
        .init(
          kind: .hashChain, subject: mismatch.streamId, streamVersion: mismatch.streamVersion,
          detail: mismatch.reason.rawValue))
    }
    // Erasures span shards: the first share checks them for all.
    if shard.index == 0 { try await auditErasures(into: &report) }
  }

  /// Every erasure's rows are exactly those it recorded (count and digest of their hashes),
  /// and no row is erased without an erasure that records it: a row marked erased outside an
  /// erasure (to hide an edit behind a tombstone) is named here.
  private func auditErasures(into report: inout AuditReport) async throws {
    let erasure = erasure
    for record in try await erasure.erasures() {
      report.erasuresChecked += 1
      guard !record.isIntact else { continue }
      report.problems.append(
        .init(
          kind: .erasure, subject: "erasures",
          detail: "erasure \(record.erasureId.uuidString.lowercased()) recorded "
            + "\(record.recordedRows) rows (digest \(record.recordedDigest)); the log holds "
            + "\(record.foundRows) erased by it (digest \(record.foundDigest))"))
    }
    let raced = try await erasure.quarantinedAccountsIndexed()
    if raced > 0 {
      report.problems.append(
        .init(
          kind: .erasure, subject: "erasures",
          detail: "\(raced) accounts an erasure quarantined hold data again (an append that "
            + "committed while the erasure ran): erase them again"))
    }
    for (id, rows) in try await erasure.unrecordedErasures().sorted(by: {
      $0.key.uuidString < $1.key.uuidString
    }) {
      report.problems.append(
        .init(
          kind: .erasure, subject: "erasures",
          detail: "\(rows) rows are marked erased by \(id.uuidString.lowercased()), which no "
            + "erasure event records"))
    }
  }

  private func auditSignatures(
    pageSize: Int, concurrency: Int, shard: WorkShard, into report: inout AuditReport
  ) async throws {
    let store = maintenance
    var position = FeedPosition.beginning
    while true {
      let page = try await store.events(after: position, limit: pageSize, shard: shard)
      guard let last = page.last else { return }
      let signed = page.filter { $0.rawSigned != nil }
      let problems = await checked(signed, concurrency: concurrency)
      report.problems += problems
      report.signaturesVerified += signed.count - problems.count
      position = last.position
    }
  }

  /// The problems of `rows`, checked in `concurrency` slices at once, in the rows' order.
  private func checked(_ rows: [RecordedEvent], concurrency: Int) async -> [AuditReport.Problem] {
    let slice = max(1, (rows.count + concurrency - 1) / concurrency)
    let found = await withTaskGroup(of: (Int, [AuditReport.Problem]).self) { group in
      for start in stride(from: 0, to: rows.count, by: slice) {
        let part = rows[start..<min(start + slice, rows.count)]
        group.addTask {
          var problems: [AuditReport.Problem] = []
          for row in part { if let problem = await check(row) { problems.append(problem) } }
          return (start, problems)
        }
      }
      var found: [(Int, [AuditReport.Problem])] = []
      for await result in group { found.append(result) }
      return found
    }
    return found.sorted { $0.0 < $1.0 }.flatMap(\.1)
  }

  /// Nil when the stored JWS verifies, says what the stored claims say, and the one mapping
  /// makes exactly the stored facts from it.
  func check(_ recorded: RecordedEvent) async -> AuditReport.Problem? {
    func problem(_ kind: AuditReport.Problem.Kind, _ detail: String) -> AuditReport.Problem {
      .init(
        kind: kind, subject: recorded.streamId, streamVersion: recorded.streamVersion,
        detail: detail)
    }
    guard let raw = recorded.rawSigned else { return nil }
    let facts: LedgerEvent.Body
    let claims: AppleClaims?
    do {
      facts = try EventCodec.body(eventType: recorded.eventType, payload: recorded.payload)
      claims = try EventCodec.claims(of: recorded)
    } catch {
      return problem(.payload, "the stored payload does not decode")
    }
    guard let claims else { return problem(.payload, "the stored event has no claims") }
    do {
      let signed = try await signedClaims(
        raw, as: claims,
        unrouted: recorded.streamId.hasPrefix(NotUnderstoodNotification.unroutedStreamPrefix))
      guard Self.sameContent(signed, claims) else {
        return problem(.payload, "the stored claims differ from the signed data")
      }
      // A row stored before facts held price terms is compared with the facts it could hold.
      let withoutTerms = EventTypes.family(of: recorded.eventType) == .factsWithoutTerms
      let expected = LedgerEvent.Body(signed).map { withoutTerms ? $0.withoutTerms() : $0 }
      // A row stored before facts held commitment and seat members keeps the rest; one
      // stored before they held the transaction's reason keeps everything else.
      return expected == facts || expected?.withoutTransactionReason() == facts
        || expected?.withoutLaterMembers() == facts
        ? nil : problem(.payload, "the stored facts differ from those of the signed data")
    } catch {
      return problem(.signature, "\(error.verificationCode ?? error.code.rawValue)")
    }
  }

  /// Verifies `raw` as unrouted evidence is verified (it names no app) and returns its claims.
  private func unroutedClaims(_ raw: String) async throws(LedgerError) -> AppleClaims {
    do {
      let verified = try await verifiers.unroutable.signedDate.verifyUnroutable(
        UnverifiedJWS(raw))
      return .notification(NotificationClaims(notification: verified.payload))

    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
  }

  /// Verifies `raw` as the kind `stored` is and returns what it claims, as the log stores it.
  private func signedClaims(_ raw: String, as stored: AppleClaims, unrouted: Bool)
    async throws(LedgerError) -> AppleClaims
  {
    let kind: SignedDataKind.Claims
    do {
      kind = try SignedDataKind.claims(of: raw)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    switch stored {
    case .notification where unrouted || kind.environment == nil || kind.bundleId == nil:
      // Stored without naming its app (unrouted evidence, or an UNCLAIM_SEATS routed by its
      // seat claims): verified as it was at ingest.
      return try await unroutedClaims(raw)
    case .notification:
      let verified = try await verifiers.verify(kind) { verifier throws(VerificationError) in
        try await verifier.verifyNotification(raw)
      }
      return .notification(
        NotificationClaims(
          notification: verified.payload, transaction: verified.transaction?.payload,
          renewalInfo: verified.renewalInfo?.payload,
          appTransaction: verified.appTransaction?.payload))
    case .transaction(let observed):
      let verified = try await verifiers.verify(kind) { verifier throws(VerificationError) in
        try await verifier.verifyTransaction(raw)
      }
      return .transaction(
        SignedTransactionClaims(
          transaction: verified.payload, appAccountToken: observed.appAccountToken))
    case .renewalInfo, .status:
      let verified = try await verifiers.verify(kind) { verifier throws(VerificationError) in
        try await verifier.verifyRenewalInfo(raw)
      }
      return .renewalInfo(RenewalInfoClaims(renewalInfo: verified.payload))
    }
  }

  /// Whether the stored claims say what the signed ones say: the signed payloads whole, and
  /// of a notification the members the log keeps outside them.
  private static func sameContent(_ signed: AppleClaims, _ stored: AppleClaims) -> Bool {
    switch (signed, stored) {
    case (.notification(let signed), .notification(let stored)):
      return stored.transaction == signed.transaction
        && stored.renewalInfo == signed.renewalInfo
        && stored.notification.notificationUUID == signed.notification.notificationUUID
        && stored.notification.notificationType == signed.notification.notificationType
        && stored.notification.subtype == signed.notification.subtype
        && stored.notification.signedDate == signed.notification.signedDate
    case (.transaction(let signed), .transaction(let stored)):
      return stored.transaction == signed.transaction
    case (.renewalInfo(let signed), .renewalInfo(let stored)):
      return stored.renewalInfo == signed.renewalInfo
    default: return false
    }
  }

  /// Each page of accounts is compared in `concurrency` contiguous slices at once; their
  /// findings join the report in account order, as one slice's would.
  private func auditReadModels(
    pageSize: Int, now: Date, concurrency: Int, shard: WorkShard, into report: inout AuditReport
  ) async throws {
    var last = ""
    while true {
      let tokens = try await storedViews.accounts(
        after: last, limit: pageSize, shard: shard)
      guard let end = tokens.last else { return }
      let stored = try await storedReadModels(of: tokens)
      let ordered = stored.inputs.sorted { $0.key < $1.key }
      let slice = max(1, (ordered.count + concurrency - 1) / concurrency)
      let parts = try await withThrowingTaskGroup(of: (Int, AuditReport).self) { group in
        for start in stride(from: 0, to: ordered.count, by: slice) {
          let accounts = ordered[start..<min(start + slice, ordered.count)]
          group.addTask {
            var part = AuditReport()
            for (token, account) in accounts {
              try compareView(
                stored.views[token], history: stored.histories[token] ?? [], of: token, account,
                now: now, into: &part)
              compareChanges(
                stored.changes[token] ?? [], of: token, account, now: now, into: &part)
            }
            return (start, part)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      for (_, part) in parts.sorted(by: { $0.0 < $1.0 }) { report.add(part) }
      last = end
    }
  }

  /// A page of accounts' log (as the projector reads it), stored views, status histories and
  /// changes: four statements for the page, read at once.
  private func storedReadModels(of tokens: [String]) async throws -> (
    inputs: [String: AccountInput], views: [String: AccountViewSlice],
    histories: [String: [StatusTransitionRow]], changes: [String: [ChangeRecord]]
  ) {
    let (store, feed) = (storedViews, changes)
    async let inputs = store.inputs(of: tokens)
    async let views = store.storedViews(of: tokens)
    async let histories = store.statusHistories(of: tokens)
    async let changes = feed.changes(ofAccounts: tokens)
    return (try await inputs, try await views, try await histories, try await changes)
  }

  /// A current view must be the log's, and so must the status history stored with it.
  private func compareView(
    _ stored: AccountViewSlice?, history: [StatusTransitionRow], of token: String,
    _ account: AccountInput, now: Date, into report: inout AuditReport
  ) throws {
    let instant = Timestamp(now)
    guard let stored, stored.changes == account.changes,
      stored.isCurrent(at: instant, projection: views.projection)
    else {
      report.accountsNotCurrent += 1
      return
    }
    report.accountsCompared += 1
    let state = LedgerState.fold(account.events)
    let view = LedgerView(state, catalog: configuration.catalog, options: configuration.options)
    let derived = views.history(of: token, account.events, state: state, through: instant)
    if let index = zip(history, derived).enumerated().first(where: { $0.element.0 != $0.element.1 }
    )?
    .offset ?? (history.count == derived.count ? nil : min(history.count, derived.count)) {
      func text(_ row: StatusTransitionRow?) -> String? {
        row.map {
          "\($0.originalTransactionId) \($0.from.map(String.init) ?? "-")→\($0.to) at "
            + "\($0.effectiveAt.milliseconds), recorded \($0.recordedAt.milliseconds), "
            + "caused by \($0.cause ?? "the clock")"
        }
      }
      report.problems.append(
        .init(
          kind: .readModel, subject: token, field: "statusHistory[\(index)]",
          live: text(index < history.count ? history[index] : nil),
          rebuilt: text(index < derived.count ? derived[index] : nil),
          detail: "the stored status history differs from the log"))
    }
    let rebuilt = try JSONDecoder().decode(
      JSONValue.self,
      from: try JSONEncoder().encode(AccountSummary(view, for: token, at: instant)))
    let live = stored.json.flatMap {
      try? JSONDecoder().decode(JSONValue.self, from: Data($0))
    }
    for difference in JSONDifference.differences(live, rebuilt) {
      report.problems.append(
        .init(
          kind: .readModel, subject: token, field: difference.path, live: difference.live,
          rebuilt: difference.rebuilt, detail: "the live view differs from the log"))
    }
  }
}

extension LedgerMaintenance {
  /// The account's stored changes must be the start of what the log derives (the rest is
  /// what the projector has not derived yet).
  private func compareChanges(
    _ stored: [ChangeRecord], of token: String, _ account: AccountInput, now: Date,
    into report: inout AuditReport
  ) {
    var input = account
    input.derivation = ChangeDerivationMarker(version: nil, events: nil, changes: nil, instant: nil)
    input.fence = .max
    let derived =
      views.derivedChanges(
        of: token, input, through: AccountViewWriter.changeHorizon(at: now))?.changes ?? []
    for (index, record) in stored.enumerated() {
      let expected = index < derived.count ? derived[index] : nil
      // A change recorded before effective times were kept has none to compare.
      let found = DerivedChange(
        record.change, occurredAt: record.occurredAt,
        effectiveAt: record.effectiveAt ?? expected?.effectiveAt, cause: record.cause)
      guard found != expected || record.ordinal != Int64(index) else { continue }
      report.problems.append(
        .init(
          kind: .changeFeed, subject: token, field: "changes[\(index)]",
          live: "\(record.change.kind.rawValue) \(record.change.subject)",
          rebuilt: expected.map { "\($0.change.kind.rawValue) \($0.change.subject)" },
          detail: "the stored change differs from the log's derivation"))
      return
    }
    report.changesCompared += stored.count
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
