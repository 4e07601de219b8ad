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

/// PEM armour (RFC 7468) for the two key kinds, and the fixed DER prefixes of Ed25519 keys
/// (RFC 8410), which are short enough not to need an ASN.1 parser.
enum PEMBlock {
  static let ed25519PrivatePrefix: [UInt8] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
  ]
  static let ed25519PublicPrefix: [UInt8] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
  ]

  /// The first PEM block's label and bytes.
  static func read(_ text: String, what: String) throws(CheckpointError) -> (String, [UInt8]) {
    let lines = text.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") }),
      lines[begin].hasSuffix("-----")
    else {
      throw CheckpointError(.unreadableKey, "the \(what) file holds no PEM block (-----BEGIN …)")
    }
    let label = String(lines[begin].dropFirst(11).dropLast(5))
    guard let end = lines[begin...].firstIndex(of: "-----END \(label)-----") else {
      throw CheckpointError(.unreadableKey, "the \(what)'s PEM block \(label) has no END line")
    }
    let body = lines[(begin + 1)..<end].filter { !$0.contains(":") }.joined()
    guard let der = Data(base64Encoded: body), !der.isEmpty else {
      throw CheckpointError(.unreadableKey, "the \(what)'s PEM block \(label) is not base64")
    }
    return (label, Array(der))
  }

  static func write(_ label: String, _ der: [UInt8]) -> String {
    let base64 = Data(der).base64EncodedString()
    var lines = ["-----BEGIN \(label)-----"]
    var index = base64.startIndex
    while index < base64.endIndex {
      let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
      lines.append(String(base64[index..<end]))
      index = end
    }
    lines.append("-----END \(label)-----")
    return lines.joined(separator: "\n") + "\n"
  }
}

/// Lower-case hex, as checkpoints and leaves files write hashes.
enum Hex {
  static func encode(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes of `text` (even length, 0-9a-f in either case), or nil.
  static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(utf8.count / 2)
    var index = 0
    while index < utf8.count {
      guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func value(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
