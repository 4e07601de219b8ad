import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport

// Decode benchmark: stored event payloads (generated lifecycles, JSON as the ledger stores
// them) decoded into `LedgerEvent`s by FlatJSONDecoder next to Foundation's JSONDecoder,
// interleaved round by round on one core. Usage: DecodeBenchmark [--events 200000] [--rounds 3]

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
let encoder = JSONEncoder()
let payloads = try generator.events.prefix(eventCount).map { Array(try encoder.encode($0)) }
let bytes = payloads.reduce(0) { $0 + $1.count }
print(
  "\(payloads.count) payloads of \(customer) customers, \(bytes / payloads.count) bytes each on average"
)

/// Decodes every payload; returns a checksum of what came out (so nothing is optimized away).
@inline(never)
func decodeAll(_ decode: ([UInt8]) throws -> String) throws -> Int {
  var checksum = 0
  for payload in payloads { checksum &+= try decode(payload).utf8.count }
  return checksum
}

let foundation = JSONDecoder()
let ways: [(name: String, decode: ([UInt8]) throws -> String)] = [
  ("JSONDecoder", { try foundation.decode(LedgerEvent.self, from: Data($0)).eventType }),
  (
    "FlatJSONDecoder",
    { try LedgerEvent(storedPayload: $0, recordedAt: nil, key: nil).eventType }
  ),
  (
    "facts only",
    { payload in
      try payload.withUnsafeBytes { try FoldInput(storedPayload: $0, key: nil).reference.eventType }
    }
  ),
]
if let only = profiledWay {
  // For profiling: one way alone.
  let way = ways.first { $0.name.hasPrefix(only) }!
  for _ in 1...rounds { _ = try decodeAll(way.decode) }
  exit(0)
}
for round in 1...rounds {
  var (rates, checksums): ([Double], [Int]) = ([], [])
  for way in ways {
    let start = ContinuousClock.now
    checksums.append(try decodeAll(way.decode))
    let elapsed = ContinuousClock.now - start
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    rates.append(Double(payloads.count) / seconds)
  }
  precondition(Set(checksums).count == 1, "the decoders disagree")
  let figures = zip(ways, rates).map { way, rate in
    String(format: "%@ %.0f events/s (%.1f µs, %.1f×)", way.name, rate, 1e6 / rate, rate / rates[0])
  }
  print("round \(round): " + figures.joined(separator: ", "))
}
