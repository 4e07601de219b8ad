import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

/// Signed checkpoints over the whole log, round by round: the ceiling is one streamed read of
/// every row's position, stream, version and hash in feed order (what a checkpoint covers,
/// decoded and nothing more); then the first checkpoint of the log signed into a fresh
/// directory (read in pages, each row hashed into the tree, the leaves file written), and the
/// checkpoint audit of the log against it (signatures, roots, the log compared row by row).
enum CheckpointMeasurement {
  static func ceiling(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await client.withConnection { connection in
      let rows = try await connection.query(
        """
        SELECT tx_id::text, seq, stream_id, stream_version, hash FROM storeledger.events
        WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY tx_id, seq
        """, logger: logger)
      var count = 0
      for try await (_, _, _, _, hash) in rows.decode(
        (String, Int64, String, Int64, ByteBuffer).self)
      {
        precondition(hash.readableBytes == 32)
        count += 1
      }
      return count
    }
  }

  static func run(ledger: Ledger, client: PostgresClient, rounds: Int, logger: Logger)
    async throws
  {
    var signRatios: [Double] = []
    var auditRatios: [Double] = []
    for round in 1...rounds {
      // Each phase's peak from the heap it needs, not what the phase before left to malloc.
      PeakMemory.trim()
      let (rows, readSeconds) = try await Figures.measure("read (row hashes)", round) {
        try await ceiling(on: client, logger: logger)
      }
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "bench-checkpoints-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      let key = CheckpointKey.generate(.ed25519)
      let directory = CheckpointDirectory(folder)
      PeakMemory.trim()
      let (signed, signSeconds) = try await Figures.measure("sign first checkpoint", round) {
        let checkpointer = LogCheckpointer(
          ledger: ledger, key: key, directory: directory, origin: "bench", logger: logger)
        return try await checkpointer.publish()?.treeSize ?? 0
      }
      precondition(signed == rows, "the checkpoint covers \(signed) of \(rows) rows")
      PeakMemory.trim()
      let (compared, auditSeconds) = try await Figures.measure("checkpoint audit", round) {
        let report = try await LedgerMaintenance(ledger: ledger).auditCheckpoints(
          directory: directory, publicKey: key.publicKey)
        precondition(report.isConsistent, "\(report.problems)")
        return report.rowsCompared
      }
      precondition(compared == rows)
      signRatios.append(readSeconds / signSeconds)
      auditRatios.append(readSeconds / auditSeconds)
      print(
        String(
          format: "       speed against the read: sign %.2f, audit %.2f",
          readSeconds / signSeconds, readSeconds / auditSeconds))
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    print(
      String(
        format: "RESULT checkpoint_sign_speed=%.2f checkpoint_audit_speed=%.2f",
        median(signRatios), median(auditRatios)))
  }
}
