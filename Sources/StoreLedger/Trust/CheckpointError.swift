/// Why a signed checkpoint could not be made or checked: a key, a file or a directory the
/// caller gave. Nothing is written when one is thrown; `code` is stable and `message` names the
/// file and what to do. (What an audit finds wrong with the log is a problem in its report,
/// not an error.)
public struct CheckpointError: Error, Hashable, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A key file that is not a PEM P-256 or Ed25519 key of the kind asked for.
    public static let unreadableKey = Code(rawValue: "unreadable_key")
    /// A checkpoint or leaves file that cannot be read as one.
    public static let malformedCheckpoint = Code(rawValue: "malformed_checkpoint")
    /// The public key is not the one the checkpoints name.
    public static let wrongPublicKey = Code(rawValue: "wrong_public_key")
    /// The directory holds no checkpoint, or cannot be read or written.
    public static let unusableDirectory = Code(rawValue: "unusable_directory")
    /// The log no longer matches what the directory's checkpoints signed: a new checkpoint
    /// would cover a rewritten history, so none is signed.
    public static let logDiverged = Code(rawValue: "log_diverged")

    public static let all: [Code] = [
      .unreadableKey, .malformedCheckpoint, .wrongPublicKey, .unusableDirectory, .logDiverged,
    ]
  }

  public let code: Code
  /// What is wrong and what to do, without key material.
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }
}
