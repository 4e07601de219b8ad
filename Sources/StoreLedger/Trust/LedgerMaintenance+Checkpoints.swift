import Foundation
import StoreLedgerCore

extension LedgerMaintenance {
  /// Checks the log against the signed checkpoints in `directory`, offline but for reading
  /// the log: every checkpoint's signature under `publicKey`; the published leaves against
  /// every checkpoint's root; each checkpoint a prefix of the next (an RFC 6962 consistency
  /// proof from the leaves, verified against both signed roots); and the log's rows, in feed
  /// order, against the published leaves, naming the first row that differs. A row changed
  /// and its stream's chain recomputed (which the hash-chain audit cannot see) fails here.
  ///
  /// Throws ``CheckpointError`` for what makes the check impossible (no checkpoint, a file that
  /// is not one, a key that signed none of them); what it finds is in the report.
  public func auditCheckpoints(
    directory: CheckpointDirectory, publicKey: CheckpointPublicKey, pageSize: Int = 10_000
  ) async throws -> CheckpointAuditReport {
    var report = CheckpointAuditReport()
    let checkpoints = try directory.checkpoints()
    guard !checkpoints.isEmpty else {
      throw CheckpointError(
        .unusableDirectory,
        "\(directory.url.path) holds no checkpoints/*.json: give the directory "
          + "`storeledger checkpoint --out` or the server's --checkpoint-dir writes")
    }
    guard checkpoints.contains(where: { $0.checkpoint.keyId == publicKey.keyId }) else {
      throw CheckpointError(
        .wrongPublicKey,
        "no checkpoint in \(directory.url.path) names key \(publicKey.keyId.prefix(16))…; they "
          + "name \(Set(checkpoints.map { String($0.checkpoint.keyId.prefix(16)) + "…" }).sorted().joined(separator: ", ")): "
          + "give the public key of the key that signs them")
    }
    let published = try directory.leafBytes()
    let leafHashes = stride(from: 0, to: published.count, by: 32).map {
      MerkleTree.leafHash(Array(published[$0..<($0 + 32)]))
    }
    for name in try directory.strayFiles() {
      report.problems.append(
        problem(
          name,
          "is not a file the checkpointer writes (checkpoints/<20-digit tree size>.json, "
            + "leaves/<from>-<to>.txt, 20 digits each): find who put it there, then remove it"))
    }
    var trusted: [(name: String, checkpoint: LogCheckpoint)] = []
    for (name, checkpoint) in checkpoints {
      guard checkpoint.isSigned(by: publicKey) else {
        report.problems.append(
          problem(
            name,
            "the signature does not verify under the given key: the checkpoint was "
              + "altered or signed by another key"))
        continue
      }
      // The name states the tree size it was published for: an older checkpoint copied over
      // the newest one would otherwise leave the rows after it unvouched for, unnoticed.
      guard name == CheckpointDirectory.checkpointName(treeSize: checkpoint.treeSize) else {
        report.problems.append(
          problem(
            name,
            "holds the checkpoint of tree size \(checkpoint.treeSize), not the one its name "
              + "states: the file was replaced (an older checkpoint copied over a newer one "
              + "hides the rows after it); restore it from the published copy"))
        continue
      }
      report.checkpoints += 1
      guard checkpoint.treeSize <= leafHashes.count,
        MerkleTree.root(leafHashes[..<checkpoint.treeSize]) == checkpoint.root
      else {
        report.problems.append(
          problem(
            name,
            "the published leaves do not hash to its root (tree size "
              + "\(checkpoint.treeSize), \(leafHashes.count) leaves published): the leaves files "
              + "were altered or are incomplete"))
        continue
      }
      if let previous = trusted.last {
        let proof = MerkleTree.consistencyProof(
          first: previous.checkpoint.treeSize, leafHashes[..<checkpoint.treeSize])
        guard let firstRoot = previous.checkpoint.root, let secondRoot = checkpoint.root,
          MerkleTree.verifyConsistency(
            first: previous.checkpoint.treeSize, firstRoot: firstRoot,
            second: checkpoint.treeSize, secondRoot: secondRoot, proof: proof)
        else {
          report.problems.append(
            problem(
              name,
              "is not an extension of \(previous.name): the log was rewritten "
                + "between them"))
          continue
        }
      }
      trusted.append((name, checkpoint))
    }
    guard let newest = trusted.last?.checkpoint else { return report }
    report.newestTreeSize = newest.treeSize
    try await compareLog(with: published, upTo: newest.treeSize, pageSize: pageSize, into: &report)
    return report
  }

  /// Reads the log in feed order and compares each row's hash with the published one (32
  /// bytes a row in `published`).
  private func compareLog(
    with published: [UInt8], upTo size: Int, pageSize: Int,
    into report: inout CheckpointAuditReport
  ) async throws {
    let store = maintenance
    var position = FeedPosition.beginning
    var index = 0
    while true {
      let page = try await store.leaves(after: position, limit: pageSize)
      guard let last = page.last else { break }
      for leaf in page {
        if index < size {
          let signed = published[(index * 32)..<(index * 32 + 32)]
          if !leaf.hash.elementsEqual(signed) {
            report.problems.append(
              AuditReport.Problem(
                kind: .checkpoint, subject: leaf.streamId, streamVersion: leaf.streamVersion,
                field: nil, live: Hex.encode(leaf.hash), rebuilt: Hex.encode(Array(signed)),
                detail: "row \(index) of the log (feed position \(leaf.position)) is not the row "
                  + "the checkpoints signed: it was changed, or a row before it was removed or "
                  + "inserted"))
            report.rowsCompared = index + 1
            return
          }
          report.rowsCompared = index + 1
        } else {
          report.rowsAfterNewest += 1
        }
        index += 1
      }
      position = last.position
    }
    if index < size {
      report.problems.append(
        problem(
          "log",
          "the log has \(index) rows but the checkpoints vouch for \(size): rows were "
            + "removed"))
    }
  }

  private func problem(_ subject: String, _ detail: String) -> AuditReport.Problem {
    AuditReport.Problem(
      kind: .checkpoint, subject: subject, streamVersion: nil, field: nil, live: nil,
      rebuilt: nil, detail: detail)
  }
}
