import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// Prints a list's pages as a text table, JSON lines of pages, or CSV.
enum ListPrinter {
  /// The first page, with a bad filter or cursor turned into a usage error (exit 2).
  static func refusingBadInput<Row>(_ read: () async throws -> ListPage<Row>) async throws
    -> ListPage<Row>
  {
    do {
      return try await read()
    } catch let error as LedgerError
      where error.code == .invalidRequest || error.code == .invalidCursor
    {
      throw ValidationError(error.message)
    }
  }

  static func print<Row: Sendable>(
    format: ListFormat, all: Bool, header: [String], first: ListPage<Row>,
    next: (String) async throws -> ListPage<Row>, csv: (Row) -> [String],
    text: (Row) -> [String], textHeader: [String], noun: String
  ) async throws {
    var page = first
    var table = TextTable(title: "\(first.total) \(noun)", header: textHeader)
    if format == .csv { StandardStreams.out(ListCSV.line(header)) }
    while true {
      switch format {
      case .csv:
        StandardStreams.out(page.rows.map { ListCSV.line(csv($0)) }.joined())
      case .json:
        say(try CommandJSON.string(JSONPage(rows: page.rows.map(csv), header: header, page: page)))
      case .text:
        table.rows += page.rows.map(text)
      }
      guard all, let cursor = page.nextCursor else { break }
      page = try await next(cursor)
    }
    if format == .text {
      StandardStreams.out(table.render())
      if let cursor = page.nextCursor {
        say("more: --cursor \(cursor)")
      }
    }
  }

  /// One page as JSON: rows as objects of the CSV's columns, the total and the next cursor.
  struct JSONPage: Encodable {
    let rows: [[String: String]]
    let total: Int
    let nextCursor: String?

    init<Row>(rows: [[String]], header: [String], page: ListPage<Row>) {
      self.rows = rows.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
      total = page.total
      nextCursor = page.nextCursor
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(rows, forKey: .rows)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case rows, total, nextCursor }
  }
}

/// Times as list commands read and print them.
enum ListTimes {
  static func text(_ time: Timestamp) -> String {
    ISO8601DateFormatter().string(from: time.date)
  }
}
