/// Entries of the account index (`storeledger.account_streams`) written by an append in the
/// same statement: every key (an `appAccountToken`) is linked to every stream.
public struct StreamIndex: Sendable, Hashable {
  public var keys: [String]
  public var streams: [String]

  public init(keys: [String], streams: [String]) {
    self.keys = keys
    self.streams = streams
  }

  public var isEmpty: Bool { keys.isEmpty || streams.isEmpty }
}
