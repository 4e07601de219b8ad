/// One of `count` shares of the log's work (an audit or a rebuild split across processes and
/// machines): a stream or an account belongs to share `index` when PostgreSQL's stable
/// `hashtextextended` of its id, modulo `count`, is `index`. The same on every machine and
/// every run, so N processes with shares 0…N-1 together cover everything exactly once.
public struct WorkShard: Sendable, Hashable, Codable, CustomStringConvertible {
  public let index: Int
  public let count: Int

  /// All the work: one share.
  public static let whole = WorkShard(uncheckedIndex: 0, count: 1)

  public init(index: Int, count: Int) throws(EventStoreError) {
    guard count >= 1, count <= 1024, (0..<count).contains(index) else {
      throw EventStoreError(
        .invalidConfiguration, "a shard is K/N with N from 1 to 1024 and K from 0 to N-1")
    }
    self.init(uncheckedIndex: index, count: count)
  }

  private init(uncheckedIndex index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  /// `K/N` as the command line writes it.
  public init(_ text: String) throws(EventStoreError) {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
      throw EventStoreError(.invalidConfiguration, "a shard is written K/N, such as 0/2")
    }
    try self.init(index: index, count: count)
  }

  public var description: String { "\(index)/\(count)" }
}
