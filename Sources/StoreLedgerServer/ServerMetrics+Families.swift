import CoreMetrics
import Foundation
import Metrics
import Prometheus
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// The families rendered from the database's and the projector's state: primaries, replicas,
/// the projector's progress.
extension ServerMetrics {
  /// For databases named by several hosts: which host accepts writes now, and how often that
  /// changed.
  static func primaryFamilies(_ apps: [(String, DatabaseHosts)]) -> String {
    let primary = "storeledger_database_primary"
    let switches = "storeledger_database_primary_switches_total"
    var text =
      "# HELP \(primary) 1 for the host statements go to (the one that accepts writes), 0 for "
      + "the others; all 0 while none is known.\n# TYPE \(primary) gauge\n"
    for (app, hosts) in apps {
      let current = hosts.currentHost
      for host in hosts.url.hosts {
        let name = host.description
        text += "\(primary){\(app)host=\"\(escaped(name))\"} \(name == current ? 1 : 0)\n"
      }
    }
    text +=
      "# HELP \(switches) Times the host that accepts writes changed to another since start "
      + "(failovers and switchovers seen).\n# TYPE \(switches) counter\n"
    for (app, hosts) in apps {
      text += "\(switches)\(braced(app)) \(hosts.status.switches)\n"
    }
    return text
  }

  /// Each read replica's place in rotation and the reads sent to it, by who answered them.
  static func replicaFamilies(_ apps: [(String, [ReadReplica.Status])]) -> String {
    let rotation = "storeledger_read_replica_in_rotation"
    let reads = "storeledger_read_replica_reads_total"
    var text =
      "# HELP \(rotation) 1 while the replica answers reads, 0 while it is out (unreachable, "
      + "not a standby, or too far behind).\n# TYPE \(rotation) gauge\n"
    for (app, statuses) in apps {
      for status in statuses {
        text +=
          "\(rotation){\(app)replica=\"\(escaped(status.name))\"} "
          + "\(status.inRotation ? 1 : 0)\n"
      }
    }
    text +=
      "# HELP \(reads) Reads sent to a replica, by who answered: the replica, or the primary "
      + "(the replica had not replayed the reader's write in time, or failed).\n"
      + "# TYPE \(reads) counter\n"
    for (app, statuses) in apps {
      for status in statuses {
        let replica = "\(app)replica=\"\(escaped(status.name))\""
        text += "\(reads){\(replica),answered=\"replica\"} \(status.served)\n"
        text += "\(reads){\(replica),answered=\"primary\"} \(status.fellBack)\n"
      }
    }
    return text
  }

  func projectorFamilies(_ apps: [(String, AccountProjector.Progress)]) -> String {
    let families: [(String, String, String, (AccountProjector.Progress) -> String)] = [
      (
        "storeledger_projector_lag_seconds", "gauge",
        "Age of the oldest event the account projector had not projected at its last read.",
        { "\($0.lagSeconds)" }
      ),
      (
        "storeledger_projector_events_total", "counter",
        "Events of the feed the account projector has projected.", { "\($0.eventsProjected)" }
      ),
      (
        "storeledger_projector_accounts_total", "counter",
        "Account views the projector has computed and stored.", { "\($0.accountsProjected)" }
      ),
      (
        "storeledger_projector_failures_total", "counter",
        "Projector rounds that failed (and were retried).", { "\($0.failures)" }
      ),
    ]
    return families.map { name, type, help, value in
      "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        + apps.map { "\(name)\(Self.braced($0.0)) \(value($0.1))\n" }.joined()
    }.joined()
  }

  static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }
}
