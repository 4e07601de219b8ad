import Crypto
import Foundation

/// What a validated leaf + intermediate pair yields: the key that signs the JWS and the
/// window in which the whole chain, root included, is valid.
struct VerifiedChain: Sendable {
  let signingKey: P256.Signing.PublicKey
  let validFrom: Date
  let validUntil: Date

  func isValid(at time: Date) -> Bool {
    validFrom <= time && time <= validUntil
  }
}
