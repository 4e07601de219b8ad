import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

// Decode benchmark: stored events (generated lifecycles) read back into facts, interleaved
// round by round on one core: stored facts by Foundation's JSONDecoder and by the codec (the
// upcaster's reading of older rows is measured by the rebuild of the fixture log's tests).
// Usage: DecodeBenchmark [--events 200000] [--rounds 3] [--only NAME]

var eventCount = 200_000
var rounds = 3
var profiledWay: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  switch argument {
  case "--events": eventCount = arguments.next().flatMap(Int.init) ?? eventCount
  case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
  case "--only": profiledWay = arguments.next()
  default: fatalError("unknown argument \(argument)")
  }
}

var generator = SyntheticLifecycles(seed: 2026)
var customer = 0
while generator.events.count < eventCount {
  generator.addCustomer(customer)
  customer += 1
}
let events = Array(generator.events.prefix(eventCount))
let facts = events.map { (type: $0.eventType, payload: EventCodec.payload(of: $0.body)) }
func average(_ rows: [(type: String, payload: [UInt8])]) -> Int {
  rows.reduce(0) { $0 + $1.payload.count } / rows.count
}
print(
  "\(events.count) events of \(customer) customers: facts \(average(facts)) bytes on average"
)

/// Reads every row; returns a checksum of what came out (so nothing is optimized away).
@inline(never)
func readAll(
  _ rows: [(type: String, payload: [UInt8])], _ read: (String, [UInt8]) throws -> LedgerEvent.Body
) throws -> Int {
  var checksum = 0
  for row in rows { checksum &+= try read(row.type, row.payload).eventType.utf8.count }
  return checksum
}

let foundation = JSONDecoder()
let ways:
  [(
    name: String, rows: [(type: String, payload: [UInt8])],
    read: (String, [UInt8]) throws -> LedgerEvent.Body
  )] = [
    ("JSONDecoder facts", facts, { try foundation.decode(LedgerEvent.Body.self, from: Data($1)) }),
    ("codec facts", facts, { try EventCodec.body(eventType: $0, payload: $1) }),
  ]
if let only = profiledWay {
  // For profiling: one way alone.
  let way = ways.first { $0.name.hasPrefix(only) }!
  for _ in 1...rounds { _ = try readAll(way.rows, way.read) }
  exit(0)
}
for round in 1...rounds {
  var rates: [Double] = []
  for way in ways {
    let start = ContinuousClock.now
    _ = try readAll(way.rows, way.read)
    let elapsed = ContinuousClock.now - start
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    rates.append(Double(way.rows.count) / seconds)
  }
  let figures = zip(ways, rates).map { way, rate in
    String(format: "%@ %.0f events/s (%.1f µs, %.1f×)", way.name, rate, 1e6 / rate, rate / rates[0])
  }
  print("round \(round): " + figures.joined(separator: ", "))
}
