import Foundation

/// A signed statement of the log's state: the root of the Merkle tree over its first
/// `treeSize` row hashes in feed order, at a time, under a key outside the database. Stored
/// as JSON; the signature covers ``signedText``, so any verifier (`openssl`, a CT library)
/// checks it without this code.
public struct LogCheckpoint: Sendable, Hashable, Codable {
  public static let format = "storeledger-checkpoint/v1"

  public var format: String
  /// Names the log (a deployment, an app): checkpoints of different logs never compare.
  public var origin: String
  public var treeSize: Int
  /// Hex.
  public var rootHash: String
  /// Unix milliseconds.
  public var issuedAt: Int64
  /// The signing key's id (``CheckpointPublicKey/keyId``).
  public var keyId: String
  public var algorithm: CheckpointPublicKey.Algorithm
  /// Base64: DER ECDSA for ES256, 64 bytes for Ed25519.
  public var signature: String

  /// The text signed: one field per line, in this order, each line ending in a newline.
  public var signedText: String {
    [format, origin, String(treeSize), rootHash, String(issuedAt), keyId, algorithm.rawValue]
      .map { $0 + "\n" }.joined()
  }

  /// Signs the tree of `size` leaves with root `root`.
  public static func sign(
    origin: String, size: Int, root: MerkleTree.Hash, at time: Date, with key: CheckpointKey
  ) throws(CheckpointError) -> LogCheckpoint {
    let publicKey = key.publicKey
    var checkpoint = LogCheckpoint(
      format: format, origin: origin, treeSize: size, rootHash: Hex.encode(root),
      issuedAt: Int64((time.timeIntervalSince1970 * 1000).rounded(.down)), keyId: publicKey.keyId,
      algorithm: publicKey.algorithm, signature: "")
    do {
      checkpoint.signature = Data(try key.sign(Array(checkpoint.signedText.utf8)))
        .base64EncodedString()
    } catch {
      throw CheckpointError(.unreadableKey, "the key could not sign: \(error)")
    }
    return checkpoint
  }

  /// Whether `key` signed exactly this checkpoint.
  public func isSigned(by key: CheckpointPublicKey) -> Bool {
    guard keyId == key.keyId, algorithm == key.algorithm,
      let signature = Data(base64Encoded: signature)
    else { return false }
    return key.isValid(signature: Array(signature), for: Array(signedText.utf8))
  }

  public var root: MerkleTree.Hash? { Hex.decode(rootHash).flatMap { $0.count == 32 ? $0 : nil } }

  /// Reads a checkpoint file's bytes; `name` is for the message.
  public static func read(_ bytes: Data, name: String) throws(CheckpointError) -> LogCheckpoint {
    let checkpoint: LogCheckpoint
    do {
      checkpoint = try JSONDecoder().decode(LogCheckpoint.self, from: bytes)
    } catch {
      throw CheckpointError(
        .malformedCheckpoint,
        "\(name) is not a StoreLedger checkpoint (JSON with format, origin, "
          + "treeSize, rootHash, issuedAt, keyId, algorithm, signature)")
    }
    guard checkpoint.format == format, checkpoint.treeSize >= 0, checkpoint.root != nil else {
      throw CheckpointError(
        .malformedCheckpoint,
        "\(name) is not a \(format) checkpoint (format, a tree size ≥ 0 and a 32-byte hex root)")
    }
    return checkpoint
  }

  public func encoded() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    // Every field is a plain string or number: encoding cannot fail.
    return (try? encoder.encode(self)) ?? Data()
  }
}
