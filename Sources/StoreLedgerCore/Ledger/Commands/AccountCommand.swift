/// What the backend asks of an account: the write side's commands. Each is decided by
/// ``LedgerView/decide(_:)`` over the account's state; the log stores only what that returns.
public enum AccountCommand: Hashable, Sendable {
  /// Spend units of a consumable; refused when the balance at the debit's time does not
  /// cover it.
  case debit(ConsumableDebited)
  /// The account owns a purchase chain Apple signed without an `appAccountToken`.
  case link(AccountLinked)
  /// An operator grants an entitlement (`started`) or ends a grant (`ended`).
  case grant(SupportGrantEvent)
}

/// Why a command was refused; nothing is stored. `code` is stable, `message` names no
/// customer data.
public struct CommandRejection: Error, Hashable, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The command is not well formed (an empty identifier, a quantity below one).
    public static let invalidCommand = Code(rawValue: "invalid_command")
    /// The consumable's balance does not cover the debit.
    public static let insufficientBalance = Code(rawValue: "insufficient_balance")
    /// The ledger holds no such subscription.
    public static let unknownSubscription = Code(rawValue: "unknown_subscription")
    /// The subscription is not multiseat with developer-hosted invitations.
    public static let notDeveloperHosted = Code(rawValue: "not_developer_hosted")
    /// The subscription is not active.
    public static let subscriptionNotActive = Code(rawValue: "subscription_not_active")
    /// The subscription has no such seat claim.
    public static let unknownSeatClaim = Code(rawValue: "unknown_seat_claim")
    /// The account holds no grant with this id.
    public static let unknownGrant = Code(rawValue: "unknown_grant")
    /// The catalog names no product that grants this entitlement (and the grant was not forced).
    public static let unknownEntitlement = Code(rawValue: "unknown_entitlement")
    /// A period that ends before, or when, it starts.
    public static let rangeReversed = Code(rawValue: "range_reversed")
    /// The command's id was used before, on this account, for a different command.
    public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")
  }

  public var code: Code
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }
}
