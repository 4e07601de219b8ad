/// Purchase chains grouped into customers as a replay learns them: chains that share an id
/// are one customer. The ids form a disjoint-set forest, so adding a customer's chains costs
/// about their size, however many customers came before.
struct ChainGroups: Sendable {
  /// Each id's parent; a root is its own parent and names its group.
  private var parent: [String: String] = [:]
  /// How many groups there are.
  private(set) var count = 0

  /// Whether a group holds `id`: a chain already replayed.
  func contains(_ id: String) -> Bool { parent[id] != nil }

  /// Joins `ids` into one group, merging every group that holds one of them.
  mutating func join(_ ids: Set<String>) {
    guard let first = ids.first else { return }
    let root: String
    if let found = self.root(of: first) {
      root = found
    } else {
      parent[first] = first
      count += 1
      root = first
    }
    for id in ids where id != first {
      if let other = self.root(of: id) {
        guard other != root else { continue }
        parent[other] = root
        count -= 1
      } else {
        parent[id] = root
      }
    }
  }

  /// The root of `id`'s group, nil when no group holds it; the path walked is pointed at the
  /// root so later walks are short.
  private mutating func root(of id: String) -> String? {
    guard parent[id] != nil else { return nil }
    var node = id
    var path: [String] = []
    while let up = parent[node], up != node {
      path.append(node)
      node = up
    }
    for walked in path { parent[walked] = node }
    return node
  }
}
