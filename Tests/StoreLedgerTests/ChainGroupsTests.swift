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
    // A fixed walk through 80 ids, different for each seed: chains of one to three ids.
    var step = seed &* 7_919
    func nextId() -> UInt64 {
      step = step &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return step >> 33
    }
    var groups = ChainGroups()
    var merged: [Set<String>] = []
    for _ in 0..<60 {
      let size = Int(nextId() % 3) + 1
      let ids = Set((0..<size).map { _ in "t\(nextId() % 80)" })
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
