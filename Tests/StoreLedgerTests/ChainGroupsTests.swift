import Testing

@testable import StoreLedger

/// Chains that share an id are one customer, however the replay learns them.
struct ChainGroupsTests {
  @Test func chainsSharingAnIdAreOneCustomer() {
    var groups = ChainGroups()
    groups.join(["a", "b"])
    groups.join(["c"])
    #expect(groups.count == 2)
    groups.join(["d"])
    #expect(groups.count == 3)
    // "e" links the first two groups and brings one id of its own.
    groups.join(["b", "c", "e"])
    #expect(groups.count == 2)
    groups.join(["a", "e"])
    #expect(groups.count == 2)
    groups.join([])
    #expect(groups.count == 2)
  }

  /// Against the plain reading of the rule (merge every group that meets the new one), over
  /// seeded random chains of a few customers each.
  @Test(arguments: 1...20) func countsAsMergingEveryMeetingGroupDoes(seed: UInt64) {
    var random = SplitMix(seed: seed)
    var groups = ChainGroups()
    var merged: [Set<String>] = []
    for _ in 0..<60 {
      let size = Int(random.next() % 3) + 1
      let ids = Set((0..<size).map { _ in "t\(random.next() % 80)" })
      groups.join(ids)
      var joined = ids
      merged.removeAll { other in
        guard !other.isDisjoint(with: joined) else { return false }
        joined.formUnion(other)
        return true
      }
      merged.append(joined)
      #expect(groups.count == merged.count)
    }
  }
}

/// A small seeded generator, so each argument replays the same chains.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
