import StoreLedgerCore

/// The list columns as a statement binds them: one array literal per account and column, so
/// many accounts travel in one flat `text[]` (PostgreSQL's arrays of arrays must be
/// rectangular) and the statement casts each back.
extension AccountListRow {
  /// The row a stored view lists as: `ProjectedAccountView`'s summary, from the start of its
  /// interval.
  init(_ view: ProjectedAccountView) {
    self.init(
      appAccountToken: view.token, changedAt: view.interval.from ?? Timestamp(milliseconds: 0),
      summary: view.summary)
  }

  var statusesLiteral: String { "{" + statuses.map { String($0) }.joined(separator: ",") + "}" }
  var entitlementsLiteral: String { Self.literal(entitlements) }
  var productsLiteral: String { Self.literal(products) }
  var storefrontsLiteral: String { Self.literal(storefronts) }
  var environmentsLiteral: String { Self.literal(environments) }

  /// Every element quoted, its quotes and backslashes escaped: no value can end the element
  /// or the array early.
  static func literal(_ values: [String]) -> String {
    var text = "{"
    for (index, value) in values.enumerated() {
      if index > 0 { text.append(",") }
      text.append("\"")
      for character in value.unicodeScalars {
        if character == "\"" || character == "\\" { text.append("\\") }
        text.unicodeScalars.append(character)
      }
      text.append("\"")
    }
    text.append("}")
    return text
  }
}
