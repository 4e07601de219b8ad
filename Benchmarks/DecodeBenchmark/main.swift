import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport

// Decode benchmark: stored event payloads (generated lifecycles, JSON as the ledger stores
// them) decoded into `LedgerEvent`s by FlatJSONDecoder next to Foundation's JSONDecoder,
// interleaved round by round on one core. Usage: DecodeBenchmark [--events 200000] [--rounds 3]

var eventCount = 200_000
var rounds = 3
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  switch argument {
  case "--events": eventCount = arguments.next().flatMap(Int.init) ?? eventCount
  case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
  case "--flat-only": break
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

@inline(never)
func decodeAll(_ decode: ([UInt8]) throws -> LedgerEvent) throws -> Int {
  var checksum = 0
  for payload in payloads { checksum &+= try decode(payload).eventType.utf8.count }
  return checksum
}

let foundation = JSONDecoder()
let flat = FlatJSONDecoder()
if CommandLine.arguments.contains("--flat-only") {
  // For profiling: FlatJSONDecoder alone.
  for _ in 1...rounds { _ = try decodeAll { try flat.decode(LedgerEvent.self, from: $0) } }
  exit(0)
}
var ratios: [Double] = []
for round in 1...rounds {
  var (seconds, checksums): ([Double], [Int]) = ([], [])
  for decode in [
    { (payload: [UInt8]) in try foundation.decode(LedgerEvent.self, from: Data(payload)) },
    { (payload: [UInt8]) in try flat.decode(LedgerEvent.self, from: payload) },
  ] {
    let start = ContinuousClock.now
    checksums.append(try decodeAll(decode))
    let elapsed = ContinuousClock.now - start
    seconds.append(
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
  }
  precondition(checksums[0] == checksums[1], "the decoders disagree")
  let (slow, fast) = (Double(payloads.count) / seconds[0], Double(payloads.count) / seconds[1])
  ratios.append(fast / slow)
  print(
    String(
      format: "round %d: JSONDecoder %.0f events/s (%.1f µs), FlatJSONDecoder %.0f events/s "
        + "(%.1f µs), %.1f×", round, slow, 1e6 / slow, fast, 1e6 / fast, fast / slow))
}
