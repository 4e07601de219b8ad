import Foundation

extension ChangeRecord {
  /// The id of the `ordinal`th change of an account: a function of the two, so a receiver
  /// that dedupes by id also dedupes a change derived again.
  public static func id(account: String, ordinal: Int64) -> UUID {
    NameBasedUUID.make(name: "change:\(account):\(ordinal)")
  }
}
