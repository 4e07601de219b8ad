import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore
import Synchronization

/// One developer-hosted group subscription's seat claims, as the App Store keeps them.
struct SeatBook {
  struct Claim {
    var requestIdentifier: String
    var appTransactionId: String?
  }

  /// Claims in force, by seatClaimId.
  var claims: [String: Claim] = [:]
  /// Every claim ever made, by requestIdentifier (a retry returns the same claim).
  var byRequest: [String: String] = [:]
}

/// Groups and seats (API 1.22/1.23, reference §8.13), Sandbox only as Apple's pages say. The
/// store computes seats from its own transactions: the seats of the newest period are the
/// quantities of its transactions (seat additions end with the period) less refunded seats.
extension SimulatedAppStore {
  typealias Failure = APIErrorResponse.Failure

  /// The subscription's seats in force now and whether it may take claims.
  private func seatState(_ originalTransactionId: String, _ state: State) throws(Failure)
    -> (total: Int, active: Bool)
  {
    guard app.environment == .sandbox else {
      throw Failure(.generalBadRequest, "This endpoint is only available in the sandbox.")
    }
    let chain = state.transactions.values.map(\.payload).filter {
      $0.originalTransactionId == originalTransactionId
    }
    guard
      let newest = chain.max(by: {
        ($0.purchaseDate ?? .init(milliseconds: 0)) < ($1.purchaseDate ?? .init(milliseconds: 0))
      })
    else {
      throw Failure(.originalTransactionIdNotFound, "Original transaction id not found.")
    }
    guard newest.type == .autoRenewableSubscription,
      newest.multiSeatInfo?.invitationManagement == .developer
    else {
      throw Failure(
        .transactionNotDevManagedGroup,
        "The subscription is not a group subscription with developer-managed invitations.")
    }
    let period = chain.filter {
      $0.expiresDate == newest.expiresDate
        && ($0.transactionId == newest.transactionId
          || $0.additionalTransactionReason == .seatAddition)
    }
    var total = 0
    var standing = false
    for transaction in period where transaction.revocationDate == nil {
      total +=
        Int(transaction.quantity ?? 1)
        - Int(transaction.multiSeatInfo?.revokedSeatQuantity ?? 0)
      standing = true
    }
    let active = standing && (newest.expiresDate.map { state.now < $0 } ?? false)
    return (max(0, total), active)
  }

  func claimSeat(_ originalTransactionId: String, _ request: ClaimSeatRequest?) throws(Failure)
    -> ClaimSeatResponse
  {
    guard let request, !request.requestIdentifier.isEmpty else {
      throw Failure(.invalidRequestIdentifier, "Invalid request identifier.")
    }
    return try state.withLock { state throws(Failure) in
      let (total, active) = try seatState(originalTransactionId, state)
      var book = state.seatBooks[originalTransactionId] ?? SeatBook()
      if let known = book.byRequest[request.requestIdentifier] {
        return ClaimSeatResponse(seatClaimId: known)
      }
      guard active else {
        throw Failure(.subscriptionNotActive, "The subscription is not active.")
      }
      if let download = request.appTransactionId, state.owners[download] == nil {
        throw Failure(.appTransactionIdNotFound, "App transaction id not found.")
      }
      guard book.claims.count < total else {
        throw Failure(.noAvailableSeats, "No seats are available to claim.")
      }
      let id = UUID().uuidString.lowercased()
      book.claims[id] = SeatBook.Claim(
        requestIdentifier: request.requestIdentifier, appTransactionId: request.appTransactionId)
      book.byRequest[request.requestIdentifier] = id
      state.seatBooks[originalTransactionId] = book
      return ClaimSeatResponse(seatClaimId: id)
    }
  }

  /// The claim's key in an active subscription's book, or Apple's error.
  private func heldClaim(_ originalTransactionId: String, _ seatClaimId: String, _ state: State)
    throws(Failure) -> String
  {
    guard try seatState(originalTransactionId, state).active else {
      throw Failure(.subscriptionNotActive, "The subscription is not active.")
    }
    let id = seatClaimId.lowercased()
    guard state.seatBooks[originalTransactionId]?.claims[id] != nil else {
      throw Failure(.seatClaimIdNotFound, "Seat claim id not found.")
    }
    return id
  }

  func unclaimSeat(_ originalTransactionId: String, _ seatClaimId: String) throws(Failure) {
    try state.withLock { state throws(Failure) in
      let id = try heldClaim(originalTransactionId, seatClaimId, state)
      state.seatBooks[originalTransactionId]?.claims[id] = nil
    }
  }

  func associateSeat(_ originalTransactionId: String, _ seatClaimId: String, _ download: String?)
    throws(Failure)
  {
    try state.withLock { state throws(Failure) in
      let id = try heldClaim(originalTransactionId, seatClaimId, state)
      guard let download, state.owners[download] != nil else {
        throw Failure(.appTransactionIdNotFound, "App transaction id not found.")
      }
      state.seatBooks[originalTransactionId]?.claims[id]?.appTransactionId = download
    }
  }

  func seatInfo(_ originalTransactionId: String) throws(Failure) -> GetSeatInfoResponse {
    try state.withLock { state throws(Failure) in
      let (total, active) = try seatState(originalTransactionId, state)
      guard active else {
        throw Failure(.subscriptionNotActive, "The subscription is not active.")
      }
      let claims = (state.seatBooks[originalTransactionId]?.claims.keys).map(Array.init) ?? []
      return GetSeatInfoResponse(
        totalSeatCount: Int32(total), availableSeatCount: Int32(max(0, total - claims.count)),
        assignedSeatClaimIds: claims.sorted())
    }
  }

  /// The seat claims in force of a subscription, as the App Store holds them (tests and the
  /// simulation's truth).
  public func seatClaims(of originalTransactionId: String) -> [String: String?] {
    state.withLock { state in
      (state.seatBooks[originalTransactionId]?.claims ?? [:]).mapValues(\.appTransactionId)
    }
  }

  /// The next `count` Claim Seat calls take their seat and then fail with a retryable
  /// internal error, as if the answer were lost on the way.
  public func loseNextClaimAnswers(_ count: Int) {
    state.withLock { $0.lostClaimAnswers = count }
  }

  func takeLostClaimAnswer() -> Bool {
    state.withLock { state in
      defer { state.lostClaimAnswers = max(0, state.lostClaimAnswers - 1) }
      return state.lostClaimAnswers > 0
    }
  }

  /// The App Store releases claims itself and says so with `UNCLAIM_SEATS` (only for
  /// developer-hosted groups). The body carries the claim ids only: what Apple's readable
  /// documentation promises (our reading, reference §2.7).
  @discardableResult
  public func unclaimSeats(_ originalTransactionId: String, _ seatClaimIds: [String]) -> String {
    let ids = seatClaimIds.map { $0.lowercased() }
    state.withLock { state in
      for id in ids { state.seatBooks[originalTransactionId]?.claims[id] = nil }
    }
    let uuid = UUID().uuidString.lowercased()
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .unclaimSeats
    body.notificationUUID = uuid
    body.version = "2.0"
    body.signedDate = now
    body.unclaimInfo = UnclaimInfo(unclaimSeatIds: ids)
    enqueue(
      SimulatedNotification(
        uuid: uuid, type: .unclaimSeats, subtype: nil, signedPayload: try! signer.sign(body),
        sentAt: now, transactionId: nil))
    return uuid
  }

  /// A group a customer belongs to (Apple-hosted invitations, Volume Purchasing).
  public func joinGroup(_ groupId: String, type: GroupType, customer: String, roles: [RoleEntry]?) {
    state.withLock { state in
      let download = Self.appTransactionId(of: customer)
      if !(state.groupMembers[groupId] ?? []).contains(download) {
        state.groupMembers[groupId, default: []].append(download)
      }
      state.owners[download] = customer
      if !(state.customerGroups[customer] ?? []).contains(where: { $0.groupId == groupId }) {
        state.customerGroups[customer, default: []].append(
          GroupEntry(groupId: groupId, groupType: type, roles: type == .organization ? roles : nil))
      }
    }
  }

  func customerGroups(_ anyTransactionId: String) throws(Failure) -> GetCustomerGroupsResponse {
    guard app.environment == .sandbox else {
      throw Failure(.generalBadRequest, "This endpoint is only available in the sandbox.")
    }
    guard let customer = customer(of: anyTransactionId) else {
      throw Failure(.transactionIdNotFound, "Transaction id not found.")
    }
    return GetCustomerGroupsResponse(groups: state.withLock { $0.customerGroups[customer] ?? [] })
  }

  func groupMembers(_ groupId: String, limit: String?, token: String?) throws(Failure)
    -> GetGroupMembersResponse
  {
    guard app.environment == .sandbox else {
      throw Failure(.generalBadRequest, "This endpoint is only available in the sandbox.")
    }
    let size = limit.map { Int($0) } ?? 100
    guard let size, (1...100).contains(size) else {
      throw Failure(.invalidLimit, "Invalid limit.")
    }
    guard groupId.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), !groupId.isEmpty else {
      throw Failure(.invalidGroupId, "Invalid group id.")
    }
    guard let members = state.withLock({ $0.groupMembers[groupId] }) else {
      throw Failure(.groupNotFound, "Group not found.")
    }
    let start = token.flatMap { Int($0) } ?? 0
    let page = members.dropFirst(start).prefix(size)
    let next = start + page.count
    return GetGroupMembersResponse(
      members: page.map { GroupMemberEntry(appTransactionId: $0) }, hasMore: next < members.count,
      paginationToken: next < members.count ? String(next) : nil)
  }
}

extension SimulatedAppStore {
  /// Finish Transaction (API 1.20): 200 for a transaction the store holds, Apple's errors
  /// otherwise. Finished transactions are kept (tests and the simulation's truth).
  func finishTransaction(_ id: String) throws(Failure) {
    try state.withLock { state throws(Failure) in
      guard id.allSatisfy(\.isNumber), !id.isEmpty else {
        throw Failure(.invalidTransactionId, "Invalid transaction id.")
      }
      if state.transactions[id] == nil {
        if state.owners[id] != nil {
          throw Failure(
            .appTransactionIdNotSupported, "An app transaction id is not supported here.")
        }
        throw Failure(.transactionIdNotFound, "Transaction id not found.")
      }
      state.finished.insert(id)
    }
  }

  /// The transactions finished through the Server API.
  public func finishedTransactions() -> Set<String> { state.withLock { $0.finished } }
}

extension SimulatedAppStore {
  /// Whether the App Store deems developer-hosted group subscription `originalTransactionId`
  /// active now, and the product of its newest period: what a member holding a claim is
  /// entitled to, from the store's own timeline.
  public func groupInForce(_ originalTransactionId: String) -> (active: Bool, productId: String?) {
    state.withLock { state in
      let active = (try? seatState(originalTransactionId, state))?.active ?? false
      let periods: [JWSTransactionDecodedPayload] = state.transactions.values.map(\.payload)
        .filter { $0.originalTransactionId == originalTransactionId }
      let newest = periods.max(by: Self.boughtBefore)
      return (active, newest?.productId)
    }
  }
}
