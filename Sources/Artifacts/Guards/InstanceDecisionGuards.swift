import Foundation
import QualifyCore

/// Guards on the onboarding's decisions in a multi-instance shell's web code (seed 004, issue
/// 23): the instance check against the answers at the edge of its contract, one deviation
/// each, and the submit handler's early returns.
extension BuildGuards {
  /// `GET /api/instance`'s contract (seed 004, task 20.2): `200` and `{"status": "ok",
  /// "product": "sovereign", "instanceName": string, "platformVersion": string}`. Each edge
  /// changes one thing of the genuine answer; only the genuine one is an instance.
  static var instanceAnswerEdges: [(what: String, status: Int, body: Any, accept: Bool)] {
    let genuine: [String: Any] = [
      "status": "ok", "product": "sovereign", "instanceName": "Work", "platformVersion": "1.4.0",
    ]
    func with(_ key: String, _ value: Any?) -> [String: Any] {
      var body = genuine
      body[key] = value
      return body
    }
    return [
      ("the genuine answer", 200, genuine, true),
      ("a 503 carrying an instance's body", 503, genuine, false),
      ("a null body", 200, NSNull(), false),
      ("a string body", 200, "ok", false),
      ("status \"degraded\"", 200, with("status", "degraded"), false),
      (
        "another product's answer (product \"cloudfiles\")", 200, with("product", "cloudfiles"),
        false
      ),
      ("no instanceName", 200, with("instanceName", nil), false),
      ("a numeric instanceName", 200, with("instanceName", 42), false),
      ("no platformVersion", 200, with("platformVersion", nil), false),
      ("a health answer ({\"status\": \"ok\"})", 200, ["status": "ok"], false),
    ]
  }

  static let instanceDecisionRules: [GuardRule] = [
    GuardRule(
      id: "instance-check",
      title: "Onboarding adds what answers /api/instance as a Sovereign instance, and nothing else",
      source:
        "seed 004, task 20.2 (the public GET /api/instance: 200, status ok, product sovereign, instanceName, platformVersion)",
      devAllows: false, shells: [.multiInstance],
      check: { build in
        guard let code = build.instanceShell?.code else { return [] }
        var hits: [GuardHit] = []
        if let check = code.responseCheck {
          switch check.value {
          case .unverified(let reason):
            hits.append(
              GuardHit(
                "parseInstanceResponse cannot be read (\(reason)): what onboarding accepts is unverified",
                at: check.location, value: "parseInstanceResponse", unverified: true))
          case .read(let read):
            for edge in instanceAnswerEdges
            where (read.name(status: edge.status, body: edge.body) != nil) != edge.accept {
              hits.append(
                GuardHit(
                  edge.accept
                    ? "parseInstanceResponse refuses \(edge.what): no instance can be added"
                    : "parseInstanceResponse accepts \(edge.what): onboarding would list a server that is not a working Sovereign instance",
                  at: check.location, value: edge.what))
            }
          }
        }
        if let gate = code.addGate {
          switch gate.value {
          case .unverified(let reason):
            hits.append(
              GuardHit(
                "the onboarding's submit handler cannot be read (\(reason)): when it adds is unverified",
                at: gate.location, value: "submit", unverified: true))
          case .read(let read):
            if read.adds(origin: "https://work.example", info: "Work") != true {
              hits.append(
                GuardHit(
                  "the submit handler returns before adding a checked instance (\(read.originName), \(read.infoName) both set): onboarding never adds one",
                  at: read.returns.first?.location ?? gate.location, value: read.infoName))
            }
          }
        }
        return hits
      },
      fix:
        "return null from parseInstanceResponse unless the answer is 200 with status ok, product sovereign and string instanceName and platformVersion"
    )
  ]
}
