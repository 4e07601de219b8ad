import Foundation
import Logging
import StoreLedgerCore

/// Signs checkpoints of the log into a ``CheckpointDirectory``: the Merkle root over every row
/// hash in feed order, with a key that is not in the database. Before it signs anything it
/// reads the log from the start and checks it against the leaves already published, so it
/// never signs over a history that was rewritten; then it only reads what was appended since.
public actor LogCheckpointer {
  let maintenance: any MaintenanceStore
  let key: CheckpointKey
  public nonisolated let directory: CheckpointDirectory
  let origin: String
  let logger: Logger
  /// Rows read per round trip.
  let pageSize = 10_000

  private var frontier = MerkleFrontier()
  private var position = FeedPosition.beginning
  private var loaded = false

  init(
    maintenance: any MaintenanceStore, key: CheckpointKey, directory: CheckpointDirectory,
    origin: String, logger: Logger
  ) {
    self.maintenance = maintenance
    self.key = key
    self.directory = directory
    self.origin = origin
    self.logger = logger
  }

  /// Signs and publishes a checkpoint of the log as it is now; nil when nothing was appended
  /// since the last one.
  @discardableResult
  public func publish(now: Date = Date()) async throws -> LogCheckpoint? {
    if !loaded { try await load() }
    let start = frontier.size
    // The new rows' leaves file, as its bytes (hex lines): one buffer, not an array a row.
    var added: [UInt8] = []
    var next = frontier
    var reached = position
    while true {
      let page = try await maintenance.leaves(after: reached, limit: pageSize)
      guard let last = page.last else { break }
      for leaf in page {
        added.append(contentsOf: Hex.encode(leaf.hash).utf8)
        added.append(UInt8(ascii: "\n"))
        next.append(leafHash: MerkleTree.leafHash(leaf.hash))
      }
      reached = last.position
    }
    // The first checkpoint is signed even of an empty log: it dates the key's first use.
    let first = start == 0 ? try directory.checkpoints().isEmpty : false
    guard !added.isEmpty || first else { return nil }
    let checkpoint = try LogCheckpoint.sign(
      origin: origin, size: next.size, root: next.root, at: now, with: key)
    try directory.publish(leaves: added, from: start, checkpoint: checkpoint)
    frontier = next
    position = reached
    logger.info(
      "signed a checkpoint of the log",
      metadata: ["tree_size": "\(checkpoint.treeSize)", "root": "\(checkpoint.rootHash)"])
    return checkpoint
  }

  /// Takes up from the directory: its leaves must match its newest checkpoint and the log's
  /// first rows.
  private func load() async throws {
    let published = try directory.leafBytes()
    let count = published.count / 32
    func row(_ index: Int) -> ArraySlice<UInt8> { published[(index * 32)..<(index * 32 + 32)] }
    if let newest = try directory.checkpoints().last?.checkpoint {
      var check = MerkleFrontier()
      for index in 0..<count { check.append(leafHash: MerkleTree.leafHash(Array(row(index)))) }
      guard newest.treeSize == count, check.root == newest.root else {
        throw CheckpointError(
          .unusableDirectory,
          "\(directory.url.path): the leaves files do not match the newest checkpoint (size "
            + "\(newest.treeSize)); restore the directory from its copy before signing more")
      }
    }
    var index = 0
    var reached = FeedPosition.beginning
    var frontier = MerkleFrontier()
    while index < count {
      let page = try await maintenance.leaves(after: reached, limit: min(pageSize, count - index))
      guard let last = page.last else {
        throw CheckpointError(
          .logDiverged,
          "the log has \(index) rows but the published checkpoints cover \(count): rows "
            + "were removed; run `storeledger audit --checkpoints` and do not sign over it")
      }
      for leaf in page {
        guard leaf.hash.elementsEqual(row(index)) else {
          throw CheckpointError(
            .logDiverged,
            "row \(index) (feed position \(leaf.position)) is not the row "
              + "a published checkpoint signed; run `storeledger audit --checkpoints` and do not "
              + "sign over it")
        }
        frontier.append(leafHash: MerkleTree.leafHash(leaf.hash))
        index += 1
      }
      reached = last.position
    }
    self.frontier = frontier
    position = reached
    loaded = true
  }
}
