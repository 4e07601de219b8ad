import Testing

@testable import StoreLedger

/// The tree is RFC 6962's: the reference roots of Certificate Transparency's eight test leaves
/// (sizes 0–8), its published audit paths, and, for every tree up to 40 leaves, every
/// inclusion and consistency proof verifies while a changed hash, size or proof does not.
@Suite struct MerkleTreeTests {
  static let data: [[UInt8]] = [
    [], [0x00], [0x10], [0x20, 0x21], [0x30, 0x31], [0x40, 0x41, 0x42, 0x43],
    [0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57],
    [
      0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e,
      0x6f,
    ],
  ]
  /// RFC 6962's reference tree heads for the first 0…8 of `data`.
  static let roots = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  ]

  @Test func theReferenceRootsOfEveryPrefix() {
    let leaves = Self.data.map(MerkleTree.leafHash)
    var frontier = MerkleFrontier()
    #expect(Hex.encode(frontier.root) == Self.roots[0])
    for size in 0...8 {
      #expect(Hex.encode(MerkleTree.root(leaves[..<size])) == Self.roots[size], "size \(size)")
      if size > 0 {
        frontier.append(leafHash: leaves[size - 1])
        #expect(Hex.encode(frontier.root) == Self.roots[size], "frontier at \(size)")
      }
    }
  }

  @Test func theReferenceAuditPaths() throws {
    let leaves = Self.data.map(MerkleTree.leafHash)
    let paths: [(index: Int, size: Int, path: [String])] = [
      (
        0, 8,
        [
          "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ]
      ),
      (
        5, 8,
        [
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ]
      ),
    ]
    for (index, size, path) in paths {
      let proof = MerkleTree.inclusionProof(index: index, leaves[..<size])
      #expect(proof.map(Hex.encode) == path, "leaf \(index) of \(size)")
      #expect(
        MerkleTree.verifyInclusion(
          leaf: leaves[index], index: index, size: size, proof: proof,
          root: try #require(Hex.decode(Self.roots[size]))))
    }
  }

  @Test func everyProofOfEveryTreeUpTo40LeavesVerifiesAndNoAlteredOneDoes() {
    let leaves = (0..<40).map {
      MerkleTree.leafHash([UInt8($0), UInt8(truncatingIfNeeded: $0 &* 7)])
    }
    let other = MerkleTree.leafHash([0xff])
    for size in 1...40 {
      let root = MerkleTree.root(leaves[..<size])
      for index in 0..<size {
        let proof = MerkleTree.inclusionProof(index: index, leaves[..<size])
        #expect(
          MerkleTree.verifyInclusion(
            leaf: leaves[index], index: index, size: size, proof: proof, root: root))
        #expect(
          !MerkleTree.verifyInclusion(
            leaf: other, index: index, size: size, proof: proof, root: root))
        if size > 1 {
          #expect(
            !MerkleTree.verifyInclusion(
              leaf: leaves[index], index: (index + 1) % size, size: size, proof: proof, root: root))
        }
      }
      for first in 0...size {
        let firstRoot = MerkleTree.root(leaves[..<first])
        let proof = MerkleTree.consistencyProof(first: first, leaves[..<size])
        #expect(
          MerkleTree.verifyConsistency(
            first: first, firstRoot: firstRoot, second: size, secondRoot: root, proof: proof),
          "\(first) → \(size)")
        guard first > 0, first < size else { continue }
        // Another first tree, a dropped node, a later tree with its last leaf changed: refused.
        var altered = Array(leaves[..<first])
        altered[first - 1] = other
        #expect(
          !MerkleTree.verifyConsistency(
            first: first, firstRoot: MerkleTree.root(altered), second: size, secondRoot: root,
            proof: proof))
        #expect(
          !MerkleTree.verifyConsistency(
            first: first, firstRoot: firstRoot, second: size, secondRoot: root,
            proof: Array(proof.dropLast())))
        var laterAltered = Array(leaves[..<size])
        laterAltered[size - 1] = other
        #expect(
          !MerkleTree.verifyConsistency(
            first: first, firstRoot: firstRoot, second: size,
            secondRoot: MerkleTree.root(laterAltered), proof: proof))
      }
    }
  }
}
