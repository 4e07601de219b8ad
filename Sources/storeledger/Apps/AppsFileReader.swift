import ArgumentParser
import Foundation
import StoreLedgerCore
import StoreLedgerServer

/// Reads the apps file's JSON into ``AppsFile/App`` values, naming the place of every
/// mistake (`apps[1].bundleId`), and resolving the files it names against its folder.
struct AppsFileReader {
  let path: String

  private static let appFields: Set<String> = [
    "name", "bundleId", "appAppleId", "environments", "database", "catalog", "sandboxEntitles",
    "rescindedConsentEndsEntitlements",
    "appStoreServerAPI", "changeWebhooks",
  ]
  private static let knownEnvironments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

  func apps(in object: JSONValue) throws -> [AppsFile.App] {
    let top = try dictionary(object, at: "the file", fields: ["apps"])
    guard case .array(let list)? = top["apps"], !list.isEmpty else {
      throw failure("\"apps\" must be a list of at least one app")
    }
    return try list.enumerated().map { index, value in try app(value, at: "apps[\(index)]") }
  }

  private func app(_ value: JSONValue, at place: String) throws -> AppsFile.App {
    let fields = try dictionary(value, at: place, fields: Self.appFields)
    let bundleId = try string(fields["bundleId"], at: "\(place).bundleId")
    guard let bundleId, !bundleId.isEmpty else { throw failure("\(place).bundleId is required") }
    let name = try string(fields["name"], at: "\(place).name") ?? bundleId
    guard ServedApp.isValidName(name) else {
      throw failure("\(place).name may hold only letters, digits, '.', '_' and '-'")
    }
    let appAppleId = try appleId(fields["appAppleId"], at: place)
    let environments = try environments(fields["environments"], at: "\(place).environments")
    if appAppleId == nil, environments.contains(.production) {
      throw failure(
        "\(place).appAppleId is required to accept Production data (or list only Sandbox)")
    }
    return AppsFile.App(
      name: name, bundleId: bundleId, appAppleId: appAppleId, environments: environments,
      database: try string(fields["database"], at: "\(place).database"),
      catalogPath: try string(fields["catalog"], at: "\(place).catalog").map(resolved),
      sandboxEntitles: try flag(fields["sandboxEntitles"], at: "\(place).sandboxEntitles"),
      rescindedConsentEndsEntitlements: try flag(
        fields["rescindedConsentEndsEntitlements"],
        at: "\(place).rescindedConsentEndsEntitlements"),
      appStoreServerAPI: try credentials(fields["appStoreServerAPI"], at: place),
      changeWebhooks: try webhooks(fields["changeWebhooks"], at: "\(place).changeWebhooks"))
  }

  private func appleId(_ value: JSONValue?, at place: String) throws -> Int64? {
    guard let value else { return nil }
    guard case .number(let number) = value, let id = Int64(exactly: number), id > 0 else {
      throw failure("\(place).appAppleId must be a positive number")
    }
    return id
  }

  private func environments(_ value: JSONValue?, at place: String) throws
    -> [AppStoreEnvironment]
  {
    guard let value else { return [.production, .sandbox] }
    guard case .array(let items) = value,
      case let names = items.compactMap({ item -> String? in
        if case .string(let name) = item { name } else { nil }
      }),
      names.count == items.count, !names.isEmpty,
      names.allSatisfy(Self.knownEnvironments.contains)
    else {
      throw failure("\(place) must list some of \(Self.knownEnvironments.joined(separator: ", "))")
    }
    return names.map(AppStoreEnvironment.init(rawValue:))
  }

  private func credentials(_ value: JSONValue?, at place: String) throws -> AppsFile.APICredentials?
  {
    guard let value else { return nil }
    let at = "\(place).appStoreServerAPI"
    let fields = try dictionary(value, at: at, fields: ["keyId", "issuerId", "p8", "url"])
    guard let keyId = try string(fields["keyId"], at: "\(at).keyId"),
      let issuerId = try string(fields["issuerId"], at: "\(at).issuerId"),
      let p8 = try string(fields["p8"], at: "\(at).p8")
    else { throw failure("\(at) needs keyId, issuerId and p8 (the key's file)") }
    return AppsFile.APICredentials(
      keyId: keyId, issuerId: issuerId, p8Path: resolved(p8),
      url: try string(fields["url"], at: "\(at).url"))
  }

  private func webhooks(_ value: JSONValue?, at place: String) throws -> [AppsFile.Webhook] {
    guard let value else { return [] }
    guard case .array(let list) = value else { throw failure("\(place) must be a list") }
    return try list.enumerated().map { index, item in
      let at = "\(place)[\(index)]"
      let fields = try dictionary(item, at: at, fields: ["url", "secretVariable"])
      guard let url = try string(fields["url"], at: "\(at).url"),
        let variable = try string(fields["secretVariable"], at: "\(at).secretVariable")
      else {
        throw failure(
          "\(at) needs url and secretVariable (the environment variable holding its secret)")
      }
      return AppsFile.Webhook(url: url, secretVariable: variable)
    }
  }

  private func dictionary(_ value: JSONValue, at place: String, fields: Set<String>) throws
    -> [String: JSONValue]
  {
    guard case .object(let object) = value else { throw failure("\(place) must be an object") }
    if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
      throw failure(
        "\(place) has an unknown field \"\(unknown)\" (known: \(fields.sorted().joined(separator: ", ")))"
      )
    }
    return object
  }

  private func string(_ value: JSONValue?, at place: String) throws -> String? {
    guard let value else { return nil }
    guard case .string(let text) = value else { throw failure("\(place) must be a string") }
    return text
  }

  private func flag(_ value: JSONValue?, at place: String) throws -> Bool? {
    guard let value else { return nil }
    guard case .bool(let flag) = value else { throw failure("\(place) must be true or false") }
    return flag
  }

  /// A path the file names, relative to the file's folder.
  private func resolved(_ file: String) -> String {
    guard !file.hasPrefix("/") else { return file }
    return URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file).path
  }

  private func failure(_ message: String) -> ValidationError {
    ValidationError("the apps file \(path): \(message)")
  }
}
