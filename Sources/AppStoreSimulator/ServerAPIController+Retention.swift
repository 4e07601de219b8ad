import AppStoreServerAPI
import Foundation
import Hummingbird

/// The Retention Messaging API's endpoints (same base URL and token as the Server API):
/// images, messages and default messages, with Apple's error bodies.
extension ServerAPIController {
  func registerRetention(on router: Router<BasicRequestContext>) {
    let base = "/inApps/v1/messaging"
    router.put(RouterPath("\(base)/image/:image")) { request, context in
      let png = try await request.body.collect(upTo: 5 << 20)
      return try await answer(request, endpoint: "uploadImage") {
        try store.uploadRetentionImage(
          context.parameters.get("image") ?? "", png: Array(png.readableBytesView))
        return NoContent()
      }
    }
    router.delete(RouterPath("\(base)/image/:image")) { request, context in
      try await answer(request, endpoint: "deleteImage") {
        try store.deleteRetentionImage(context.parameters.get("image") ?? "")
        return NoContent()
      }
    }
    router.get(RouterPath("\(base)/image/list")) { request, _ in
      try await answer(request, endpoint: "imageList") { store.retentionList(.image) }
    }
    router.put(RouterPath("\(base)/message/:message")) { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "uploadMessage") {
        let body = try decoded(bytes, as: UploadMessageRequestBody.self)
        try store.uploadRetentionMessage(context.parameters.get("message") ?? "", body)
        return NoContent()
      }
    }
    router.delete(RouterPath("\(base)/message/:message")) { request, context in
      try await answer(request, endpoint: "deleteMessage") {
        try store.deleteRetentionMessage(context.parameters.get("message") ?? "")
        return NoContent()
      }
    }
    router.get(RouterPath("\(base)/message/list")) { request, _ in
      try await answer(request, endpoint: "messageList") { store.retentionList(.message) }
    }
    let defaults = RouterPath("\(base)/default/:product/:locale")
    router.put(defaults) { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "configureDefault") {
        let body = try? JSONDecoder().decode(
          DefaultConfigurationRequest.self, from: Data(bytes.readableBytesView))
        try store.configureDefaultMessage(
          productId: context.parameters.get("product") ?? "",
          locale: context.parameters.get("locale") ?? "", message: body?.messageIdentifier)
        return NoContent()
      }
    }
    router.get(defaults) { request, context in
      try await answer(request, endpoint: "getDefault") {
        try store.defaultMessage(
          productId: context.parameters.get("product") ?? "",
          locale: context.parameters.get("locale") ?? "")
      }
    }
    router.delete(defaults) { request, context in
      try await answer(request, endpoint: "deleteDefault") {
        try store.deleteDefaultMessage(
          productId: context.parameters.get("product") ?? "",
          locale: context.parameters.get("locale") ?? "")
        return NoContent()
      }
    }
  }
}
