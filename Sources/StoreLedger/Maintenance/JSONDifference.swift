import StoreLedgerCore

/// The leaves where two JSON values differ, as `path: live vs rebuilt`.
enum JSONDifference {
  static func differences(
    _ live: JSONValue?, _ rebuilt: JSONValue?, at path: String = ""
  ) -> [(path: String, live: String?, rebuilt: String?)] {
    switch (live, rebuilt) {
    case (.object(let left)?, .object(let right)?):
      return Set(left.keys).union(right.keys).sorted().flatMap { key in
        differences(left[key], right[key], at: path.isEmpty ? key : "\(path).\(key)")
      }
    case (.array(let left)?, .array(let right)?):
      return (0..<max(left.count, right.count)).flatMap { index in
        differences(
          index < left.count ? left[index] : nil, index < right.count ? right[index] : nil,
          at: "\(path)[\(index)]")
      }
    default:
      guard live != rebuilt else { return [] }
      return [(path, live.map(text), rebuilt.map(text))]
    }
  }

  private static func text(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let flag): String(flag)
    case .number(let number):
      number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .string(let string): "\"\(string)\""
    case .array(let values): "[\(values.count) items]"
    case .object(let members): "{\(members.count) fields}"
    }
  }
}
