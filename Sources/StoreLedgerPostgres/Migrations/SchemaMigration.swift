import Crypto

/// One numbered file of `schema/`.
public struct SchemaMigration: Sendable, Hashable {
  public let version: Int
  public let name: String
  public let sql: String

  public init(version: Int, name: String, sql: String) {
    self.version = version
    self.name = name
    self.sql = sql
  }

  /// SHA-256 of the SQL, recorded when applied: an applied migration must never change.
  public var checksum: String {
    SHA256.hash(data: Array(sql.utf8)).map { byte in
      let hex = String(byte, radix: 16)
      return byte < 16 ? "0" + hex : hex
    }.joined()
  }
}
