import Foundation
import NIOHTTP1
import StoreLedgerCore

/// Groups and seats (API 1.22/1.23; every endpoint is Sandbox only for now, reference §8.13).
///
/// Apple's pages give each endpoint's path identifier (`groups-v1-transactions-{}-seats`)
/// but not the full URL. Existing endpoints' identifiers omit the `/inApps` prefix
/// (`v1-transactions-{}` is `/inApps/v1/transactions/{id}`), so these are called at
/// ``seatPathPrefix`` + the identifier's path: our reading, in one place to change.
extension AppStoreServerAPIClient {
  public static let seatPathPrefix = "/inApps/groups/v1"

  private static func seatsPath(_ originalTransactionId: String) throws -> String {
    "\(seatPathPrefix)/transactions/\(try pathComponent(originalTransactionId))/seats"
  }

  private static func claimComponent(_ seatClaimId: String) throws -> String {
    guard let id = UUID(uuidString: seatClaimId) else {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: .seatClaimIdNotFound, "a seatClaimId is a UUID")
    }
    return id.uuidString.lowercased()
  }

  /// Claim Seat: the claim's id. Send the same `requestIdentifier` again after a failure or
  /// a timeout: Apple then answers with the claim the first call made.
  public func claimSeat(_ originalTransactionId: String, _ request: ClaimSeatRequest)
    async throws -> String
  {
    let body: ClaimSeatResponse = try await send(
      try Self.seatsPath(originalTransactionId), query: [], method: .POST,
      body: try JSONEncoder().encode(request))
    guard let id = body.seatClaimId, UUID(uuidString: id) != nil else {
      throw AppStoreAPIError(.invalidResponse, "Claim Seat answered without a seatClaimId")
    }
    return id.lowercased()
  }

  /// Unclaim Seat.
  public func unclaimSeat(_ originalTransactionId: String, seatClaimId: String) async throws {
    let _: NoContent = try await send(
      "\(try Self.seatsPath(originalTransactionId))/\(try Self.claimComponent(seatClaimId))",
      query: [], method: .DELETE, body: nil)
  }

  /// Associate Seat: the member who occupies a claimed seat, by their app download.
  public func associateSeat(
    _ originalTransactionId: String, seatClaimId: String, appTransactionId: String
  ) async throws {
    let _: NoContent = try await send(
      "\(try Self.seatsPath(originalTransactionId))/\(try Self.claimComponent(seatClaimId))/associate",
      query: [], method: .POST,
      body: try JSONEncoder().encode(AssociateSeatRequest(appTransactionId: appTransactionId)))
  }

  /// Get Seat Info.
  public func seatInfo(_ originalTransactionId: String) async throws -> GetSeatInfoResponse {
    try await get(try Self.seatsPath(originalTransactionId), query: [])
  }

  /// Get Customer Groups: the groups the customer of `transactionId` belongs to.
  public func customerGroups(_ transactionId: String) async throws -> [GroupEntry] {
    let body: GetCustomerGroupsResponse = try await get(
      "\(Self.seatPathPrefix)/currentGroups/\(try Self.pathComponent(transactionId))", query: [])
    return body.groups ?? []
  }

  /// Get Group Members: every page (at most `limit`, up to 100, a page).
  public func groupMembers(_ groupId: String, limit: Int = 100) async throws
    -> [GroupMemberEntry]
  {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    guard (1...100).contains(limit), !groupId.isEmpty,
      let group = groupId.addingPercentEncoding(withAllowedCharacters: allowed)
    else {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: limit > 100 ? .invalidLimit : .invalidGroupId,
        "a group id, and a limit from 1 to 100")
    }
    var members: [GroupMemberEntry] = []
    var token: String?
    repeat {
      var query = [(name: "limit", value: String(limit))]
      if let token { query.append((name: "paginationToken", value: token)) }
      let page: GetGroupMembersResponse = try await get(
        "\(Self.seatPathPrefix)/group/\(group)", query: query)
      members += page.members ?? []
      token = page.hasMore == true ? page.paginationToken : nil
    } while token != nil
    return members
  }
}
