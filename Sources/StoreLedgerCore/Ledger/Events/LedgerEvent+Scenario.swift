/// An event as scenario files write it (design.md, "Scenario files"): Apple's claims under
/// one of `notification`, `transaction` (with the forwarded `appAccountToken` beside it),
/// `renewalInfo`, `status`, or a backend command under `debit`, `link`, `seat` or `grant`; optional
/// `recordedAt` (ms) and `key`. Claims become facts through the one mapping.
extension LedgerEvent: Decodable {
  private enum Keys: String, CodingKey, CaseIterable {
    case notification, transaction, renewalInfo, status, debit, link, seat, grant, recordedAt
    case key
  }

  private static let kinds: [Keys] = [
    .notification, .transaction, .renewalInfo, .status, .debit, .link, .seat, .grant,
  ]

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    let kind = try container.onlyKind(of: Self.kinds, for: "an event")
    let body: Body
    switch kind {
    case .debit: body = .debit(try container.decode(ConsumableDebited.self, forKey: .debit))
    case .link: body = .link(try container.decode(AccountLinked.self, forKey: .link))
    case .seat: body = .seat(try container.decode(SeatClaimEvent.self, forKey: .seat))
    case .grant: body = .grant(try container.decode(SupportGrantEvent.self, forKey: .grant))
    default: body = try Self.facts(of: try AppleClaims(from: decoder), decoder: decoder)
    }
    self.init(
      body, recordedAt: try container.decodeIfPresent(Timestamp.self, forKey: .recordedAt),
      key: try container.decodeIfPresent(String.self, forKey: .key))
  }

  private static func facts(of claims: AppleClaims, decoder: any Decoder) throws -> Body {
    guard let body = Body(claims) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription:
            "a transaction needs its transactionId, a renewal info its originalTransactionId"
        ))
    }
    return body
  }
}
