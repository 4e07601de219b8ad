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

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    var list = container.nestedUnkeyedContainer(forKey: Key("\(kind.rawValue)Identifiers"))
    for item in items {
      var entry = list.nestedContainer(keyedBy: Key.self)
      try entry.encode(item.identifier, forKey: Key("\(kind.rawValue)Identifier"))
      try entry.encode(item.state, forKey: Key("\(kind.rawValue)State"))
    }
  }
}
