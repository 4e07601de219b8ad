import Crypto

/// The Merkle tree of RFC 6962 (Certificate Transparency) and RFC 9162, over SHA-256: a leaf
/// hashes as `SHA-256(0x00 || data)`, an inner node as `SHA-256(0x01 || left || right)`, and a
/// tree of n leaves splits at the largest power of two below n. A signed checkpoint's leaves
/// are the log's row hashes in feed order, so anyone holding the same rows computes the same
/// root, and proofs in the standard form can be checked by any RFC 6962 library.
public enum MerkleTree {
  public typealias Hash = [UInt8]

  /// The hash of a tree without leaves: SHA-256 of nothing.
  public static let emptyRoot: Hash = Array(SHA256.hash(data: [UInt8]()))

  public static func leafHash(_ data: [UInt8]) -> Hash {
    var hasher = SHA256()
    hasher.update(data: [0])
    hasher.update(data: data)
    return Array(hasher.finalize())
  }

  public static func nodeHash(_ left: Hash, _ right: Hash) -> Hash {
    var hasher = SHA256()
    hasher.update(data: [1])
    hasher.update(data: left)
    hasher.update(data: right)
    return Array(hasher.finalize())
  }

  /// The root of the tree whose leaf hashes are `leaves`.
  public static func root(_ leaves: ArraySlice<Hash>) -> Hash {
    switch leaves.count {
    case 0: return emptyRoot
    case 1: return leaves[leaves.startIndex]
    default:
      let split = leaves.startIndex + largestPowerOfTwo(below: leaves.count)
      return nodeHash(root(leaves[..<split]), root(leaves[split...]))
    }
  }

  public static func root(_ leaves: [Hash]) -> Hash { root(leaves[...]) }

  /// The audit path of leaf `index` in the tree of `leaves` (RFC 6962 §2.1.1).
  public static func inclusionProof(index: Int, _ leaves: ArraySlice<Hash>) -> [Hash] {
    guard leaves.count > 1, index >= 0, index < leaves.count else { return [] }
    let half = largestPowerOfTwo(below: leaves.count)
    let split = leaves.startIndex + half
    if index < half {
      return inclusionProof(index: index, leaves[..<split]) + [root(leaves[split...])]
    }
    return inclusionProof(index: index - half, leaves[split...]) + [root(leaves[..<split])]
  }

  /// Whether `proof` shows the leaf hash `leaf` at `index` in the tree of `size` leaves whose
  /// root is `root` (RFC 9162 §2.1.3.2).
  public static func verifyInclusion(
    leaf: Hash, index: Int, size: Int, proof: [Hash], root: Hash
  ) -> Bool {
    guard index >= 0, index < size else { return false }
    var fn = index
    var sn = size - 1
    var hash = leaf
    for sibling in proof {
      guard sn != 0 else { return false }
      if fn & 1 == 1 || fn == sn {
        hash = nodeHash(sibling, hash)
        if fn & 1 == 0 { climbPastLeftEdges(&fn, &sn) }
      } else {
        hash = nodeHash(hash, sibling)
      }
      fn >>= 1
      sn >>= 1
    }
    return sn == 0 && hash == root
  }

  /// The proof that the tree of the first `first` leaves is a prefix of the tree of `leaves`
  /// (RFC 6962 §2.1.2). Empty when `first` is 0 or the whole.
  public static func consistencyProof(first: Int, _ leaves: ArraySlice<Hash>) -> [Hash] {
    guard first > 0, first < leaves.count else { return [] }
    return subproof(first, leaves, complete: true)
  }

  private static func subproof(_ m: Int, _ leaves: ArraySlice<Hash>, complete: Bool) -> [Hash] {
    if m == leaves.count { return complete ? [] : [root(leaves)] }
    let half = largestPowerOfTwo(below: leaves.count)
    let split = leaves.startIndex + half
    if m <= half {
      return subproof(m, leaves[..<split], complete: complete) + [root(leaves[split...])]
    }
    return subproof(m - half, leaves[split...], complete: false) + [root(leaves[..<split])]
  }

  /// Whether `proof` shows the tree of `first` leaves with root `firstRoot` to be a prefix of
  /// the tree of `second` leaves with root `secondRoot` (RFC 9162 §2.1.4.2).
  public static func verifyConsistency(
    first: Int, firstRoot: Hash, second: Int, secondRoot: Hash, proof: [Hash]
  ) -> Bool {
    guard first >= 0, first <= second else { return false }
    if first == second { return proof.isEmpty && firstRoot == secondRoot }
    // Every tree extends the empty one.
    if first == 0 { return proof.isEmpty && firstRoot == emptyRoot }
    guard !proof.isEmpty else { return false }
    var path = proof
    if first & (first - 1) == 0 { path.insert(firstRoot, at: 0) }
    var fn = first - 1
    var sn = second - 1
    while fn & 1 == 1 {
      fn >>= 1
      sn >>= 1
    }
    var fr = path[0]
    var sr = path[0]
    for node in path.dropFirst() {
      guard sn != 0 else { return false }
      if fn & 1 == 1 || fn == sn {
        fr = nodeHash(node, fr)
        sr = nodeHash(node, sr)
        if fn & 1 == 0 { climbPastLeftEdges(&fn, &sn) }
      } else {
        sr = nodeHash(sr, node)
      }
      fn >>= 1
      sn >>= 1
    }
    return fr == firstRoot && sr == secondRoot && sn == 0
  }

  /// RFC 9162's "right-shift both until LSB(fn) is set or fn is 0": climbs past the levels
  /// where the node is a left child on the tree's right edge (it has no sibling there).
  private static func climbPastLeftEdges(_ fn: inout Int, _ sn: inout Int) {
    while fn & 1 == 0 && fn != 0 {
      fn >>= 1
      sn >>= 1
    }
  }

  /// The largest power of two strictly below `count` (count ≥ 2).
  static func largestPowerOfTwo(below count: Int) -> Int {
    var power = 1
    while power << 1 < count { power <<= 1 }
    return power
  }
}

/// The right edge of a growing tree (its perfect subtrees, largest first): the root of every
/// prefix of the log without keeping the leaves, in O(log n) memory and one node hash per leaf.
public struct MerkleFrontier: Sendable, Hashable {
  /// (leaves below, hash) of each perfect subtree, largest first.
  private var subtrees: [(count: Int, hash: MerkleTree.Hash)] = []
  public private(set) var size = 0

  public init() {}

  public mutating func append(leafHash: MerkleTree.Hash) {
    var node = (count: 1, hash: leafHash)
    while let last = subtrees.last, last.count == node.count {
      subtrees.removeLast()
      node = (last.count * 2, MerkleTree.nodeHash(last.hash, node.hash))
    }
    subtrees.append(node)
    size += 1
  }

  public var root: MerkleTree.Hash {
    guard var hash = subtrees.last?.hash else { return MerkleTree.emptyRoot }
    for subtree in subtrees.dropLast().reversed() { hash = MerkleTree.nodeHash(subtree.hash, hash) }
    return hash
  }

  public static func == (lhs: MerkleFrontier, rhs: MerkleFrontier) -> Bool {
    lhs.size == rhs.size && lhs.root == rhs.root
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(size)
    hasher.combine(root)
  }
}
