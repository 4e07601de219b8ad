import Crypto
import Foundation

/// The public half, which an auditor keeps: checks a checkpoint's signature offline. Its id is
/// the SHA-256 of its SubjectPublicKeyInfo (DER), in hex.
public struct CheckpointPublicKey: Sendable {
  public enum Algorithm: String, Sendable, Codable, CaseIterable {
    case es256 = "ES256"
    case ed25519 = "Ed25519"
  }

  enum Storage: Sendable {
    case p256(P256.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)
  }

  let storage: Storage

  init(storage: Storage) { self.storage = storage }

  public init(pem: String) throws(CheckpointError) {
    let (label, der) = try PEMBlock.read(pem, what: "public key")
    guard label == "PUBLIC KEY" else {
      throw CheckpointError(
        .unreadableKey,
        "expected a PUBLIC KEY PEM block, found \(label) (derive it with `openssl pkey -in "
          + "checkpoint-key.pem -pubout -out checkpoint-public.pem`)")
    }
    if der.count == 44, der.starts(with: PEMBlock.ed25519PublicPrefix),
      let key = try? Curve25519.Signing.PublicKey(rawRepresentation: der.suffix(32))
    {
      storage = .ed25519(key)
    } else if let key = try? P256.Signing.PublicKey(derRepresentation: der) {
      storage = .p256(key)
    } else {
      throw CheckpointError(.unreadableKey, "the public key is neither P-256 nor Ed25519")
    }
  }

  public var algorithm: Algorithm {
    switch storage {
    case .p256: .es256
    case .ed25519: .ed25519
    }
  }

  /// SubjectPublicKeyInfo, DER.
  public var derRepresentation: [UInt8] {
    switch storage {
    case .p256(let key): Array(key.derRepresentation)
    case .ed25519(let key): PEMBlock.ed25519PublicPrefix + Array(key.rawRepresentation)
    }
  }

  public var pemRepresentation: String { PEMBlock.write("PUBLIC KEY", derRepresentation) }

  /// SHA-256 of the SubjectPublicKeyInfo, hex.
  public var keyId: String { Hex.encode(Array(SHA256.hash(data: derRepresentation))) }

  func isValid(signature: [UInt8], for message: [UInt8]) -> Bool {
    switch storage {
    case .p256(let key):
      guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature)
      else { return false }
      return key.isValidSignature(signature, for: message)
    case .ed25519(let key):
      return key.isValidSignature(signature, for: message)
    }
  }
}
