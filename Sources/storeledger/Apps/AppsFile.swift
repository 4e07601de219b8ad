import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer

/// The apps one deployment serves, read from a JSON file (`--apps` or `STORELEDGER_APPS`):
///
///     {"apps": [{"name": "pro", "bundleId": "com.example.pro", "appAppleId": 1234567890,
///                "environments": ["Production", "Sandbox"], "database": "storeledger_pro",
///                "catalog": "pro-catalog.json", "sandboxEntitles": true,
///                "appStoreServerAPI": {"keyId": "…", "issuerId": "…", "p8": "pro.p8"},
///                "changeWebhooks": [{"url": "https://…", "secretVariable": "PRO_SECRET"}]}]}
///
/// Files it names are relative to it. Each app has its own database (a name on the server of
/// DATABASE_URL, or a URL), because accounts are per app. Unknown fields are errors: a typo
/// must not silently fall back to a default.
struct AppsFile: Sendable {
  struct App: Sendable {
    var name: String
    var bundleId: String
    var appAppleId: Int64?
    var environments: [AppStoreEnvironment]
    /// A database name on DATABASE_URL's server, or a postgres:// URL; nil: DATABASE_URL's.
    var database: String?
    var catalogPath: String?
    var sandboxEntitles: Bool?
    var rescindedConsentEndsEntitlements: Bool? = nil
    var appStoreServerAPI: APICredentials?
    var changeWebhooks: [Webhook]

    var apiVariables: [String: String] { appStoreServerAPI?.variables ?? [:] }
  }

  struct APICredentials: Sendable {
    /// As the STORELEDGER_API_* variables would give them.
    var variables: [String: String] {
      var variables = [
        "STORELEDGER_API_KEY_ID": keyId, "STORELEDGER_API_ISSUER_ID": issuerId,
        "STORELEDGER_API_P8": p8Path,
      ]
      variables["STORELEDGER_API_URL"] = url
      return variables
    }

    var keyId: String
    var issuerId: String
    var p8Path: String
    var url: String?
  }

  struct Webhook: Sendable {
    var url: String
    var secretVariable: String
  }

  let path: String
  let apps: [App]

  /// The app named `name`; without a name, the only app (several need one).
  func app(named name: String?) throws -> App {
    let names = apps.map(\.name).joined(separator: ", ")
    guard let name else {
      guard apps.count == 1 else {
        throw ValidationError("give --app (or STORELEDGER_APP): \(path) lists \(names)")
      }
      return apps[0]
    }
    guard let app = apps.first(where: { $0.name == name }) else {
      throw ValidationError("unknown app \"\(name)\": \(path) lists \(names)")
    }
    return app
  }

  /// Reads and checks the file.
  static func load(_ path: String) throws -> AppsFile {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ValidationError("cannot read the apps file \(path)")
    }
    let object: JSONValue
    do {
      object = try JSONDecoder().decode(JSONValue.self, from: data)
    } catch {
      throw ValidationError("the apps file \(path) is not JSON")
    }
    let reader = AppsFileReader(path: path)
    let apps = try reader.apps(in: object)
    try checkUnique(apps, path: path)
    return AppsFile(path: path, apps: apps)
  }

  private static func checkUnique(_ apps: [App], path: String) throws {
    for (what, values) in [
      ("name", apps.map(\.name)), ("bundleId", apps.map(\.bundleId)),
      ("database", apps.map { $0.database ?? "" }),
    ] {
      var seen = Set<String>()
      for value in values where !seen.insert(value).inserted {
        let shown = value.isEmpty ? "(DATABASE_URL's)" : value
        throw ValidationError(
          "\(path): two apps have the \(what) \(shown)"
            + (what == "database" ? "; accounts are per app, so give each its own database" : ""))
      }
    }
  }

  /// The app's database: its URL, or DATABASE_URL's server with its database name.
  static func databaseURL(of app: App, base: DatabaseURL) throws -> DatabaseURL {
    guard let database = app.database else { return base }
    guard database.contains("://") else { return base.with(database: database) }
    do { return try DatabaseURL(database) } catch {
      throw ValidationError("app \(app.name): \(error.message)")
    }
  }
}
