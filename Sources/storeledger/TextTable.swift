import Foundation

/// A plain-text table with a header row and columns padded to their widest cell.
struct TextTable {
  let title: String
  let header: [String]
  var rows: [[String]] = []

  func render() -> String {
    guard !rows.isEmpty else { return "\(title): none\n" }
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        .joined(separator: "  ").trimmingTrailingSpaces()
    }
    return ([title, line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
  }
}

extension String {
  fileprivate func trimmingTrailingSpaces() -> String {
    var copy = self
    while copy.last == " " { copy.removeLast() }
    return copy
  }
}
