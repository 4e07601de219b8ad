import ArgumentParser
import Foundation
import StoreLedger

/// `storeledger checkpoint`: signs checkpoints of the log with a key kept outside the
/// database, and makes such keys.
struct CheckpointCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "checkpoint",
    abstract: "Sign a checkpoint of the log (a Merkle root over every row hash) into a directory.",
    discussion: """
      A signed checkpoint fixes the log's history: `storeledger audit --checkpoints DIR \
      --public-key FILE` later proves every row the checkpoints cover is unchanged, even \
      against someone who can recompute the hash chain (a database superuser). Keep the key \
      out of the database host's reach and copy the directory somewhere the database's \
      operators cannot write. docs/trust.md says what this proves and against whom.

      Examples:
        storeledger checkpoint new-key --algorithm ed25519 --out checkpoint-key.pem
        storeledger checkpoint --key checkpoint-key.pem --out /srv/checkpoints
      """,
    subcommands: [CheckpointSignCommand.self, CheckpointNewKeyCommand.self],
    defaultSubcommand: CheckpointSignCommand.self)

  /// Reads a key file, a usage error when it is not a usable key.
  static func privateKey(_ path: String) throws -> CheckpointKey {
    do {
      return try CheckpointKey(pem: try text(path, "--key"))
    } catch let error as CheckpointError {
      throw ValidationError("\(path): \(error.code): \(error.message)")
    }
  }

  static func publicKey(_ path: String) throws -> CheckpointPublicKey {
    do {
      return try CheckpointPublicKey(pem: try text(path, "--public-key"))
    } catch let error as CheckpointError {
      throw ValidationError("\(path): \(error.code): \(error.message)")
    }
  }

  private static func text(_ path: String, _ option: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ValidationError("\(option) \(path) cannot be read: give the path of a PEM file")
    }
    return String(decoding: data, as: UTF8.self)
  }
}

struct CheckpointSignCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sign",
    abstract: "Sign a checkpoint of the log as it is now (nothing when nothing was appended).")

  @Option(help: "The private key (PEM, P-256 or Ed25519).") var key: String
  @Option(help: "The checkpoint directory (checkpoints/ and leaves/ are written below it).")
  var out: String
  @Option(help: "The log's name in every checkpoint (default: the bundle id).") var origin: String?
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let key = try CheckpointCommand.privateKey(key)
    let directory = CheckpointDirectory(URL(fileURLWithPath: out, isDirectory: true))
    let checkpoint = try await ledger.withLedger("storeledger.checkpoint") { ledger, logger in
      let checkpointer = LogCheckpointer(
        ledger: ledger, key: key, directory: directory,
        origin: origin ?? ledger.configuration.bundleId, logger: logger)
      do {
        return try await checkpointer.publish()
      } catch let error as CheckpointError {
        throw CommandFailure("\(error.code): \(error.message)")
      }
    }
    guard let checkpoint else {
      say("nothing appended since the last checkpoint: none signed")
      return
    }
    say(
      "signed checkpoint of \(checkpoint.treeSize) rows, root \(checkpoint.rootHash), key "
        + "\(checkpoint.keyId.prefix(16))… (\(checkpoint.algorithm.rawValue)), in \(out)")
  }
}

struct CheckpointNewKeyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "new-key",
    abstract: "Make a signing key (PEM, readable by its owner only) and its public key beside it.")

  @Option(help: "ed25519 (the default) or p256.") var algorithm = "ed25519"
  @Option(help: "Where to write the private key; the public key goes to the same name + .pub.")
  var out: String

  func run() throws {
    let chosen: CheckpointPublicKey.Algorithm
    switch algorithm.lowercased() {
    case "ed25519": chosen = .ed25519
    case "p256", "p-256", "es256": chosen = .es256
    default: throw ValidationError("--algorithm \(algorithm): use ed25519 or p256")
    }
    guard !FileManager.default.fileExists(atPath: out) else {
      throw ValidationError("\(out) exists: a key is never overwritten; choose another --out")
    }
    let key = CheckpointKey.generate(chosen)
    guard
      FileManager.default.createFile(
        atPath: out, contents: Data(key.pemRepresentation.utf8),
        attributes: [.posixPermissions: 0o600]),
      FileManager.default.createFile(
        atPath: out + ".pub", contents: Data(key.publicKey.pemRepresentation.utf8))
    else {
      throw CommandFailure("cannot write \(out): check the directory exists and is writable")
    }
    say("wrote \(out) (private, 0600) and \(out).pub; key id \(key.publicKey.keyId)")
  }
}
