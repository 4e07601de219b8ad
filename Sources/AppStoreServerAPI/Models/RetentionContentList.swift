import StoreLedgerCore

/// The answer of Get Image List and Get Message List (Retention Messaging API): each
/// identifier uploaded and the state of Apple's review of it (`PENDING`, `APPROVED`,
/// `REJECTED`). Apple names the list `imageIdentifiers` or `messageIdentifiers`, and each
/// item's fields `imageIdentifier`/`imageState` or `messageIdentifier`/`messageState`.
public struct RetentionContentList: Hashable, Sendable, Encodable {
  public enum Kind: String, Sendable { case image, message }

  public struct Item: Hashable, Sendable {
    public var identifier: String
    public var state: String

    public init(identifier: String, state: String) {
      self.identifier = identifier
      self.state = state
    }
  }

  public var kind: Kind
  public var items: [Item]

  public init(kind: Kind, items: [Item]) {
    self.kind = kind
    self.items = items
  }

  public func encode(to encoder: any Encoder) throws {
    let name = kind.rawValue
    let list: [JSONValue] = items.map {
      .object(["\(name)Identifier": .string($0.identifier), "\(name)State": .string($0.state)])
    }
    try JSONValue.object(["\(name)Identifiers": .array(list)]).encode(to: encoder)
  }
}
