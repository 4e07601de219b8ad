import Crypto
import Foundation

/// The private key that signs checkpoints: P-256 (ECDSA with SHA-256, DER signatures) or
/// Ed25519, read from PEM (`EC PRIVATE KEY` or PKCS #8 `PRIVATE KEY`, as `openssl genpkey`
/// writes them). It lives outside the database, so nobody who only holds the database can sign.
public struct CheckpointKey: Sendable {
  enum Storage: Sendable {
    case p256(P256.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)
  }

  let storage: Storage

  public init(pem: String) throws(CheckpointError) {
    let (label, der) = try PEMBlock.read(pem, what: "private key")
    if label == "PRIVATE KEY", der.count == 48, der.starts(with: PEMBlock.ed25519PrivatePrefix) {
      guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: der.suffix(32)) else {
        throw CheckpointError(.unreadableKey, "the Ed25519 private key cannot be read")
      }
      storage = .ed25519(key)
      return
    }
    guard label == "EC PRIVATE KEY" || label == "PRIVATE KEY",
      let key = try? P256.Signing.PrivateKey(derRepresentation: der)
    else {
      throw CheckpointError(
        .unreadableKey,
        "the private key is neither P-256 nor Ed25519 (make one with `openssl genpkey "
          + "-algorithm ed25519 -out checkpoint-key.pem` or `openssl genpkey -algorithm EC "
          + "-pkeyopt ec_paramgen_curve:P-256 -out checkpoint-key.pem`)")
    }
    storage = .p256(key)
  }

  /// A new random key (for tests and `storeledger checkpoint --new-key`).
  public static func generate(_ algorithm: CheckpointPublicKey.Algorithm) -> CheckpointKey {
    switch algorithm {
    case .es256: CheckpointKey(storage: .p256(P256.Signing.PrivateKey()))
    case .ed25519: CheckpointKey(storage: .ed25519(Curve25519.Signing.PrivateKey()))
    }
  }

  init(storage: Storage) { self.storage = storage }

  /// The key in PKCS #8 PEM, as `openssl genpkey` writes it.
  public var pemRepresentation: String {
    switch storage {
    case .p256(let key): key.pemRepresentation
    case .ed25519(let key):
      PEMBlock.write("PRIVATE KEY", PEMBlock.ed25519PrivatePrefix + key.rawRepresentation)
    }
  }

  public var publicKey: CheckpointPublicKey {
    switch storage {
    case .p256(let key): CheckpointPublicKey(storage: .p256(key.publicKey))
    case .ed25519(let key): CheckpointPublicKey(storage: .ed25519(key.publicKey))
    }
  }

  func sign(_ message: [UInt8]) throws -> [UInt8] {
    switch storage {
    case .p256(let key): Array(try key.signature(for: message).derRepresentation)
    case .ed25519(let key): Array(try key.signature(for: message))
    }
  }
}
