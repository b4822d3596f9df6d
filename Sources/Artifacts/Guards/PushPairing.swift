import Foundation
import QualifyCore

/// The push pairing of DESIGN.md rule 14, read statically: the channel's backend env against
/// the build it serves. Each mistake is silent at runtime (login works, pushes never arrive),
/// so each finding names both sides, file and line.
enum PushPairing {
  static func ios(_ build: AppBuild) -> [GuardHit] {
    // Only a single-origin app's backend pairs with its build here.
    guard let backend = build.backend else { return [] }
    let env = backend.env
    var out: [GuardHit] = []
    guard let aps = build.push.apsEnvironment else {
      let file = build.files["ios.entitlements"] ?? "App.entitlements"
      return [
        GuardHit(
          "no aps-environment entitlement: the OS gives the app no APNs token, so no push can reach it (PUSH_ENABLED at \(place(env.location(of: "PUSH_ENABLED"))))",
          at: FileLocation(file: file, line: 0, column: 1), value: "aps-environment")
      ]
    }
    let sandbox = BackendSettings.flag(env["PUSH_APNS_USE_SANDBOX"]) ?? false
    let gateway = sandbox ? "the sandbox gateway" : "the production gateway"
    let signed =
      "the build's aps-environment is \"\(aps.value)\" (\(place(aps.location))\(aps.derivation.isEmpty ? "" : "; " + aps.derivation.joined(separator: "; ")))"
    let raw =
      env["PUSH_APNS_USE_SANDBOX"].map { "PUSH_APNS_USE_SANDBOX=\($0)" }
      ?? "PUSH_APNS_USE_SANDBOX unset (False)"
    if (aps.value == "production") == sandbox {
      out.append(
        GuardHit(
          "\(raw) sends to \(gateway), but \(signed): every push is refused BadDeviceToken",
          at: env.location(of: "PUSH_APNS_USE_SANDBOX") ?? aps.location,
          value: env["PUSH_APNS_USE_SANDBOX"] ?? "unset"))
    }
    let appId = build.appId
    let secrets = ["PUSH_APNS_KEY", "PUSH_APNS_KEY_ID", "PUSH_APNS_TEAM_ID"]
    let given = secrets.filter { !(env[$0] ?? "").isEmpty }
    if !given.isEmpty && given.count < secrets.count {
      let missing = secrets.filter { !given.contains($0) }
      out.append(
        GuardHit(
          "\(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are") set but not \(missing.joined(separator: ", ")): the backend's APNs sender stays off until all are",
          at: env.location(of: given[0]), value: missing.joined(separator: ", ")))
    }
    switch env["PUSH_APNS_BUNDLE_ID"] {
    case nil, "":
      out.append(
        GuardHit(
          "PUSH_APNS_BUNDLE_ID is not set in the backend env: the backend's APNs sender stays off (it is the apns-topic of every push); the app id is \(appId.value) (\(place(appId.location)))",
          at: env.location(of: "PUSH_ENABLED"), value: "PUSH_APNS_BUNDLE_ID"))
    case let topic? where topic != appId.value:
      out.append(
        GuardHit(
          "PUSH_APNS_BUNDLE_ID=\(topic) is not the app id \(appId.value) (\(place(appId.location))): every push is refused DeviceTokenNotForTopic",
          at: env.location(of: "PUSH_APNS_BUNDLE_ID"), value: topic))
    default: break
    }
    return out
  }

  static func android(_ build: AppBuild) -> [GuardHit] {
    guard let backend = build.backend else { return [] }
    let env = backend.env
    var out: [GuardHit] = []
    let appId = build.appId
    let servicesFile = build.files["android.googleServices"] ?? "android/app/google-services.json"
    if build.push.postNotificationsPermission?.value != true {
      out.append(
        GuardHit(
          "AndroidManifest.xml does not declare android.permission.POST_NOTIFICATIONS: Android 13+ never asks, and shows no notification",
          at: build.push.postNotificationsPermission?.location
            ?? build.files["android.manifest"].map { FileLocation(file: $0, line: 0, column: 1) },
          value: "POST_NOTIFICATIONS"))
    }
    guard let project = build.push.firebaseProjectId else {
      out.append(
        GuardHit(
          "no google-services.json: the build registers with no Firebase project and gets no FCM token, so no push can reach it",
          at: FileLocation(file: servicesFile, line: 0, column: 1), value: nil))
      return out
    }
    switch env["PUSH_FCM_PROJECT_ID"] {
    case nil, "":
      out.append(
        GuardHit(
          "PUSH_FCM_PROJECT_ID is not set in the backend env: the backend's FCM sender stays off, and the devices register with the project \(project.value) (\(place(project.location)))",
          at: env.location(of: "PUSH_ENABLED") ?? project.location, value: "PUSH_FCM_PROJECT_ID"))
    case let backendProject? where backendProject != project.value:
      out.append(
        GuardHit(
          "PUSH_FCM_PROJECT_ID=\(backendProject) is not the Firebase project \(project.value) of google-services.json (\(place(project.location))): every push is refused SENDER_ID_MISMATCH",
          at: env.location(of: "PUSH_FCM_PROJECT_ID"), value: backendProject))
    default: break
    }
    if let account = backend.fcmCredentialsProject,
      let backendProject = env["PUSH_FCM_PROJECT_ID"], !backendProject.isEmpty,
      account != backendProject
    {
      out.append(
        GuardHit(
          "PUSH_FCM_CREDENTIALS is a service account of the project \(account), not of PUSH_FCM_PROJECT_ID=\(backendProject) (\(place(env.location(of: "PUSH_FCM_PROJECT_ID")))): every push is refused PERMISSION_DENIED",
          at: env.location(of: "PUSH_FCM_CREDENTIALS"), value: account))
    }
    if !build.push.firebasePackages.contains(where: { $0.value == appId.value }) {
      let clients = build.push.firebasePackages.map(\.value)
      out.append(
        GuardHit(
          "google-services.json (\(place(project.location))) has no client for the app id \(appId.value) (\(place(appId.location))): \(clients.isEmpty ? "it has no Android client" : "its clients are \(clients.joined(separator: ", "))"); the google-services step fails the build, or the app gets no token",
          at: build.push.firebasePackages.first?.location ?? project.location, value: appId.value))
    }
    return out
  }

  private static func place(_ location: FileLocation?) -> String {
    guard let location else { return "not in any file" }
    return location.line > 0 ? "\(location.file):\(location.line)" : location.file
  }
}
