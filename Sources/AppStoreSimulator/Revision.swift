import AppStoreServerAPI
import AppStoreVerification
import StoreLedgerCore

/// A paging token of the simulated API. Opaque to clients, as Apple's are: it names the
/// position in the modification order (history) or in the refund order (refunds) after which
/// the next page starts.
struct Revision: Hashable {
  var direction: TransactionHistoryRequest.Order
  /// Modification sequence (history) or refund index position (refunds).
  var position: Int64

  var token: String {
    let text = "\(direction == .ascending ? "A" : "D").\(position)"
    return Base64Bytes.encode(Array(text.utf8), alphabet: .urlUnpadded)
  }

  init(direction: TransactionHistoryRequest.Order, position: Int64) {
    self.direction = direction
    self.position = position
  }

  init(token: String) throws(APIErrorResponse.Failure) {
    guard let bytes = Base64Bytes.decode(token, alphabet: .urlUnpadded),
      let text = String(validating: bytes, as: UTF8.self), let dot = text.firstIndex(of: "."),
      let position = Int64(text[text.index(after: dot)...]), position >= 0
    else { throw .init(.invalidRequestRevision, "invalid revision") }
    switch text[..<dot] {
    case "A": direction = .ascending
    case "D": direction = .descending
    default: throw .init(.invalidRequestRevision, "invalid revision")
    }
    self.position = position
  }
}
