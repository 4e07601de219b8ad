import Foundation
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Keys as OpenSSL writes them: each kind is read, signs checkpoints that verify under its
/// public key and under no other, and what is not a usable key is a typed error.
@Suite struct CheckpointKeyTests {
  static func fixture(_ name: String) throws -> String {
    try SharedFixtures.text("checkpoint-keys/\(name)")
  }

  @Test(arguments: [
    ("ed25519-private.pem", "ed25519-public.pem", CheckpointPublicKey.Algorithm.ed25519),
    ("p256-sec1-private.pem", "p256-public.pem", .es256),
  ])
  func openSSLKeysSignCheckpointsThatVerify(
    privateFile: String, publicFile: String, algorithm: CheckpointPublicKey.Algorithm
  ) throws {
    let key = try CheckpointKey(pem: try Self.fixture(privateFile))
    let publicKey = try CheckpointPublicKey(pem: try Self.fixture(publicFile))
    #expect(key.publicKey.keyId == publicKey.keyId)
    #expect(key.publicKey.algorithm == algorithm)
    let checkpoint = try LogCheckpoint.sign(
      origin: "tests", size: 3, root: MerkleTree.emptyRoot,
      at: Date(timeIntervalSince1970: 1_800_000_000), with: key)
    #expect(checkpoint.isSigned(by: publicKey))
    #expect(!checkpoint.isSigned(by: CheckpointKey.generate(algorithm).publicKey))
    // Any field changed breaks the signature.
    var larger = checkpoint
    larger.treeSize = 4
    #expect(!larger.isSigned(by: publicKey))
    var later = checkpoint
    later.issuedAt += 1
    #expect(!later.isSigned(by: publicKey))
    // The file round-trips.
    let read = try LogCheckpoint.read(checkpoint.encoded(), name: "c.json")
    #expect(read == checkpoint && read.isSigned(by: publicKey))
  }

  /// A signature OpenSSL made over a text verifies under the key as read here: both sides
  /// mean the same key and the same signature encoding.
  @Test func signaturesOpenSSLMadeVerify() throws {
    let text = Array(try SharedFixtures.data("checkpoint-keys/signed.txt"))
    for (publicFile, signature) in [
      ("ed25519-public.pem", "signed.ed25519.sig"), ("p256-public.pem", "signed.p256.sig"),
    ] {
      let key = try CheckpointPublicKey(pem: try Self.fixture(publicFile))
      let bytes = try SharedFixtures.bytes("checkpoint-keys/\(signature)")
      #expect(key.isValid(signature: bytes, for: text), "\(signature)")
      #expect(!key.isValid(signature: bytes, for: text + [0x0a]))
    }
  }

  @Test func pkcs8P256AndGeneratedKeysRoundTripThroughPEM() throws {
    let pkcs8 = try CheckpointKey(pem: try Self.fixture("p256-pkcs8-private.pem"))
    #expect(pkcs8.publicKey.algorithm == .es256)
    for algorithm in CheckpointPublicKey.Algorithm.allCases {
      let key = CheckpointKey.generate(algorithm)
      let again = try CheckpointKey(pem: key.pemRepresentation)
      #expect(again.publicKey.keyId == key.publicKey.keyId)
      let publicKey = try CheckpointPublicKey(pem: key.publicKey.pemRepresentation)
      #expect(publicKey.keyId == key.publicKey.keyId && publicKey.algorithm == algorithm)
    }
  }

  @Test func whatIsNotAUsableKeyIsATypedError() throws {
    let cases: [(String, Bool)] = [
      ("", true),
      ("not a key", true),
      ("-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----\n", true),
      ("-----BEGIN PRIVATE KEY-----\nAAAA\n", true),
      (try Self.fixture("ed448-private.pem"), true),
      // A public key where the private one belongs, and the other way round.
      (try Self.fixture("p256-public.pem"), true),
      (try Self.fixture("p256-sec1-private.pem"), false),
    ]
    for (pem, asPrivate) in cases {
      let error = #expect(throws: CheckpointError.self) {
        if asPrivate {
          _ = try CheckpointKey(pem: pem)
        } else {
          _ = try CheckpointPublicKey(pem: pem)
        }
      }
      #expect(error?.code == .unreadableKey, "\(pem.prefix(30))")
    }
  }

  @Test func aFileThatIsNotACheckpointIsATypedError() {
    for text in ["", "{}", #"{"format":"other"}"#, "[1,2]"] {
      let error = #expect(throws: CheckpointError.self) {
        _ = try LogCheckpoint.read(Data(text.utf8), name: "checkpoints/x.json")
      }
      #expect(error?.code == .malformedCheckpoint)
      #expect(error?.message.contains("checkpoints/x.json") == true)
    }
  }
}
