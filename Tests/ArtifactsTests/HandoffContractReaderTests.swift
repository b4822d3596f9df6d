import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The handoff's exchange read on both sides — the server's route and the web page's call —
/// and held to each other: a field or a path renamed on one side refuses every sign-in.
@Suite struct HandoffContractReaderTests {
  static let routes = "apps/api/src/routes/mobileAuthRoutes.ts"
  static let client = "apps/web/src/features/mobile/systemAuthExchange.ts"

  /// Routes in the real repository's shape, written here: a plugin constant, two routes (the
  /// issue first), a schema per body that lists its property names and refuses any other.
  static let realRoutes = """
    import type { FastifyPluginAsync, FastifyReply } from "fastify";

    const MAX_BODY_BYTES = 4 * 1024;
    const B64 = "^[A-Za-z0-9_-]+$";
    const MAX_VERIFIER = 128;

    interface IssueBody {
      purpose: "sign-in" | "link-provider";
      codeChallenge: string;
      state: string;
    }

    interface ExchangeBody {
      callbackCode: string;
      codeVerifier: string;
      state: string;
    }

    const issueSchema = {
      type: "object",
      additionalProperties: false,
      propertyNames: { enum: ["purpose", "codeChallenge", "state"] },
      required: ["purpose", "codeChallenge", "state"],
      properties: {
        purpose: { type: "string", enum: ["sign-in", "link-provider"] },
        codeChallenge: { type: "string", minLength: 43, maxLength: 128, pattern: B64 },
        state: { type: "string", minLength: 16, maxLength: 128, pattern: B64 },
      },
    } as const;

    const exchangeSchema = {
      type: "object",
      additionalProperties: false,
      propertyNames: { enum: ["callbackCode", "codeVerifier", "state"] },
      required: ["callbackCode", "codeVerifier", "state"],
      properties: {
        callbackCode: { type: "string", minLength: 16, maxLength: 256, pattern: B64 },
        codeVerifier: { type: "string", minLength: 43, maxLength: MAX_VERIFIER, pattern: B64 },
        state: { type: "string", minLength: 16, maxLength: 128, pattern: B64 },
      },
    } as const;

    function noStore(reply: FastifyReply): void {
      reply.header("Cache-Control", "no-store");
    }

    export const mobileAuthRoute: FastifyPluginAsync = async (fastify) => {
      fastify.post<{ Body: IssueBody }>(
        "/mobile-auth/issue",
        {
          bodyLimit: MAX_BODY_BYTES,
          schema: { body: issueSchema },
          onRequest: (_request, reply) => {
            noStore(reply);
            return Promise.resolve();
          },
        },
        async (request, reply) => reply.send({ callbackCode: "x" }),
      );

      fastify.post<{ Body: ExchangeBody }>(
        "/mobile-auth/exchange",
        {
          bodyLimit: MAX_BODY_BYTES,
          schema: { body: exchangeSchema },
          onRequest: (_request, reply) => {
            noStore(reply);
            return Promise.resolve();
          },
        },
        async (request, reply) => {
          const result = await service.exchange({
            callbackCode: request.body.callbackCode,
            codeVerifier: request.body.codeVerifier,
            state: request.body.state,
          });
          if (!result.ok) return reply.code(400).send({ error: "invalid_request" });
          return reply.send({ token: result.oneTimeToken });
        },
      );
    };
    """

  /// The server registering every plugin under `/api`, in another file.
  static let realServer = """
    export async function buildServer() {
      const server = Fastify();
      await server.register(capabilitiesRoute, { prefix: "/api" });
      await server.register(mobileAuthRoute, { prefix: "/api" });
      return server;
    }
    """

  /// The page's call in the real repository's shape: a base URL with its trailing slash cut,
  /// the fields taken from the handoff it was given.
  static let realClient = """
    export async function redeem(handoff: Handoff, deps: Deps): Promise<string> {
      const doFetch = deps.fetch ?? globalThis.fetch;
      const response = await doFetch(`${deps.apiBaseUrl.replace(/\\/$/, "")}/mobile-auth/exchange`, {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          callbackCode: handoff.callbackCode,
          codeVerifier: handoff.codeVerifier,
          state: handoff.state,
        }),
      });
      return response.ok ? "ok" : "invalid";
    }
    """

  func build(_ files: [String: String]) throws -> AppBuild {
    let directory = try Fixtures.overlayApp(
      "qualify-handoff-exchange", base: Fixtures.bridgeApp, files: files)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try #require(try AppRepository(directory: directory.path).builds(for: .prod)[.ios])
  }

  func exchangeFindings(_ build: AppBuild) -> [Finding] {
    BuildGuards.findings(for: build).filter {
      $0.rule == "handoff-server" && $0.value?.hasPrefix("exchange") == true
    }
  }

  @Test func theSamplesExchangeIsReadOnBothSidesAndAgrees() throws {
    let build = try self.build([:])
    let bridge = try #require(build.bridge)
    let route = try #require(bridge.handoffServer.routes?.exchange)
    #expect(route.value.path == "/mobile-auth/exchange")
    #expect(route.value.prefix == "/api")
    #expect(route.value.served == "/api/mobile-auth/exchange")
    #expect(route.value.required == ["callbackCode", "codeVerifier", "state"])
    #expect(route.value.accepted == ["callbackCode", "codeVerifier", "state"])
    #expect(route.value.fieldsFrom == "exchangeBodySchema")
    #expect(route.location?.file.hasSuffix(Self.routes) == true)
    let call = try #require(bridge.exchangeCall)
    #expect(call.value.path == "/mobile-auth/exchange")
    #expect(call.value.fields.map(\.key) == ["callbackCode", "codeVerifier", "state"])
    #expect(call.value.key(.verifier) == "codeVerifier")
    #expect(call.location?.file.hasSuffix(Self.client) == true)
    #expect(call.location?.line == 43)
    #expect(route.value.refusal(of: call.value) == nil)
    #expect(exchangeFindings(build).isEmpty)
  }

  @Test func theRealShapeIsReadTheExchangeAmongItsRoutes() throws {
    let build = try self.build([
      Self.routes: Self.realRoutes, "apps/api/src/server.ts": Self.realServer,
      Self.client: Self.realClient,
    ])
    let route = try #require(build.bridge?.handoffServer.routes?.exchange?.value)
    // The issue route comes first and carries no verifier: the exchange is the one that does.
    #expect(route.path == "/mobile-auth/exchange")
    #expect(route.prefix == "/api")
    #expect(route.required == ["callbackCode", "codeVerifier", "state"])
    #expect(route.accepted == ["callbackCode", "codeVerifier", "state"])
    #expect(route.fieldsFrom == "exchangeSchema")
    let call = try #require(build.bridge?.exchangeCall?.value)
    #expect(call.path == "/mobile-auth/exchange")
    #expect(call.fields.map(\.role) == [.code, .verifier, .state])
    #expect(exchangeFindings(build).isEmpty)
  }

  @Test func aRenameOnEitherSideIsAnErrorAtThePagesCall() throws {
    let cases: [(String, [String: String], status: Int, says: String)] = [
      (
        "the page sends the code as `code`",
        [
          Self.client: Self.realClient.replacingOccurrences(
            of: "callbackCode: handoff.callbackCode", with: "code: handoff.callbackCode")
        ],
        400, "the route needs callbackCode (exchangeSchema)"
      ),
      (
        "the schema requires `code`",
        [
          Self.routes: Self.realRoutes.replacingOccurrences(
            of: #"required: ["callbackCode", "codeVerifier", "state"]"#,
            with: #"required: ["code", "codeVerifier", "state"]"#)
        ],
        400, "the route needs code"
      ),
      (
        "the page sends one more field",
        [
          Self.client: Self.realClient.replacingOccurrences(
            of: "state: handoff.state,", with: "state: handoff.state,\n      purpose: \"sign-in\",")
        ],
        400, "the page sends purpose, which the route refuses"
      ),
      (
        "the page posts to another path",
        [
          Self.client: Self.realClient.replacingOccurrences(
            of: "/mobile-auth/exchange`", with: "/mobile-auth/redeem`")
        ],
        404, "no route answers it"
      ),
    ]
    for (label, changed, status, says) in cases {
      var files = [
        Self.routes: Self.realRoutes, "apps/api/src/server.ts": Self.realServer,
        Self.client: Self.realClient,
      ]
      files.merge(changed) { $1 }
      #expect(
        files != [
          Self.routes: Self.realRoutes, "apps/api/src/server.ts": Self.realServer,
          Self.client: Self.realClient,
        ], "\(label): the change was not made")
      let build = try self.build(files)
      let bridge = try #require(build.bridge)
      let route = try #require(bridge.handoffServer.routes?.exchange?.value, "\(label)")
      let call = try #require(bridge.exchangeCall?.value, "\(label)")
      let refusal = try #require(route.refusal(of: call), "\(label)")
      #expect(refusal.status == status, "\(label)")
      #expect(refusal.why.contains(says), "\(label): \(refusal.why)")
      let finding = try #require(exchangeFindings(build).first, "\(label)")
      #expect(finding.severity == .error, "\(label)")
      #expect(finding.location?.file.hasSuffix(Self.client) == true, "\(label)")
      #expect(finding.location?.line == 3, "\(label)")
    }
  }

  @Test func aRouteWithoutASchemaNeedsWhatItsHandlerReads() throws {
    let loose = """
      export async function mobileAuthRoutes(app: FastifyInstance) {
        app.post<{ Body: { code: string; verifier: string; state: string } }>(
          "/mobile-auth/redeem",
          async (request, reply) => {
            const { code, verifier, state } = request.body;
            const result = await handoff.redeem(code, verifier, state, Date.now());
            if (!result.ok) return reply.code(400).send({ error: "invalid_request" });
            return { token: "t" };
          },
        );
      }
      """
    let build = try self.build([Self.routes: loose])
    let route = try #require(build.bridge?.handoffServer.routes?.exchange?.value)
    #expect(route.path == "/mobile-auth/redeem")
    #expect(route.required == ["code", "verifier", "state"])
    #expect(route.accepted == nil)
    #expect(route.fieldsFrom == "what its handler reads")
    // The sample's page posts to …/mobile-auth/exchange with callbackCode: both are wrong here.
    let call = try #require(build.bridge?.exchangeCall?.value)
    #expect(route.refusal(of: call)?.status == 404)
    let matching = HandoffCall(
      path: "/mobile-auth/redeem",
      fields: [
        .init(key: "callbackCode", role: .code), .init(key: "verifier", role: .verifier),
        .init(key: "state", role: .state),
      ])
    #expect(route.refusal(of: matching)?.why.contains("needs code") == true)
    var extra = matching
    extra.fields[0].key = "code"
    extra.fields.append(.init(key: "purpose", role: .other))
    // No schema refuses a field the handler does not read.
    #expect(route.refusal(of: extra) == nil)
  }

  @Test func aCallNotReadOrNotFoundIsUnverifiedNeverPassed() throws {
    let spread = Self.realClient.replacingOccurrences(
      of: """
        JSON.stringify({
              callbackCode: handoff.callbackCode,
              codeVerifier: handoff.codeVerifier,
              state: handoff.state,
            })
        """, with: "JSON.stringify(handoff)")
    #expect(spread != Self.realClient)
    let unread = try build([Self.client: spread])
    #expect(unread.bridge?.exchangeCall == nil)
    let finding = try #require(exchangeFindings(unread).first)
    #expect(finding.severity == .unverified)
    #expect(finding.message.contains("its body is not an object literal"))

    let computed = Self.realClient.replacingOccurrences(
      of: "/mobile-auth/exchange`", with: "/mobile-auth/${step}`")
    let notRead = try #require(exchangeFindings(try build([Self.client: computed])).first)
    #expect(notRead.severity == .unverified)
    #expect(notRead.message.contains("computed"))

    // The page's call elsewhere: not found, and said where qualify looked.
    let moved = try build([Self.client: "export const unrelated = 1;\n"])
    let missing = try #require(exchangeFindings(moved).first)
    #expect(missing.severity == .unverified)
    #expect(missing.message.contains("apps/web/src"))
    #expect(missing.message.contains("parts.handoffClient"))
  }

  @Test func theIssueAndWhatTheAppSendsAreReadFromTheRealShape() throws {
    let build = try self.build([
      Self.routes: Self.realRoutes, "apps/api/src/server.ts": Self.realServer,
      Self.client: Self.realClient,
    ])
    let bridge = try #require(build.bridge)
    let issue = try #require(bridge.handoffServer.routes?.issue?.value)
    #expect(issue.served == "/api/mobile-auth/issue")
    #expect(issue.accepted == ["purpose", "codeChallenge", "state"])
    #expect(issue.bounds(.purpose)?.values == ["sign-in", "link-provider"])
    #expect(issue.bounds(.challenge) == HandoffFieldBounds(minLength: 43, maxLength: 128))
    // A bound written as a constant of the module is resolved.
    let exchange = try #require(bridge.handoffServer.routes?.exchange?.value)
    #expect(exchange.bounds(.verifier) == HandoffFieldBounds(minLength: 43, maxLength: 128))
    // The sample's page on the fixed origin, in shorthand.
    let call = try #require(bridge.issueCall)
    #expect(call.value.fields.map(\.role) == [.purpose, .state, .challenge])
    #expect(call.location?.file.hasSuffix("MobileAuthPage.tsx") == true)
    #expect(bridge.handoff.stateBytes?.value == 16)
    #expect(bridge.handoff.purposes?.value == ["sign-in", "link-provider", "add-passkey"])
    // The app opens add-passkey, which this schema's enum leaves out.
    let refused = BuildGuards.findings(for: build).filter { $0.value == "add-passkey" }
    #expect(refused.count == 1)
    #expect(refused.first?.severity == .error)
    #expect(refused.first?.location?.file.hasSuffix(Self.routes) == true)
  }

  @Test func whatTheAppSendsOutsideTheSchemasIsAnError() throws {
    let session = "apps/mobile/src/auth/SystemAuthSession.ts"
    let page = "apps/web/src/features/mobile/MobileAuthPage.tsx"
    let sample = { (path: String) in
      try String(contentsOfFile: Fixtures.bridgeApp + "/" + path, encoding: .utf8)
    }
    let cases: [(String, String, String, String, String, file: String)] = [
      (
        session, "const STATE_BYTES = 16;", "const STATE_BYTES = 8;", "STATE_BYTES",
        "11 characters, under minLength 16", session
      ),
      (
        session, "const VERIFIER_BYTES = 32;", "const VERIFIER_BYTES = 100;", "VERIFIER_BYTES",
        "134 characters, over maxLength 128", session
      ),
      (
        session, #""add-passkey";"#, #""add-passkey" | "delete-account";"#, "delete-account",
        "is not one of sign-in, link-provider, add-passkey", Self.routes
      ),
      (
        page, "JSON.stringify({ purpose, state, codeChallenge })",
        "JSON.stringify({ purpose, state, code_challenge: codeChallenge })", "issue",
        "the route needs codeChallenge (issueBodySchema)", page
      ),
    ]
    for (path, from, to, value, says, file) in cases {
      let original = try sample(path)
      let changed = original.replacingOccurrences(of: from, with: to)
      #expect(changed != original, "\(value): the change was not made")
      let build = try self.build([path: changed])
      let findings = BuildGuards.findings(for: build).filter { $0.value == value }
      let finding = try #require(findings.first, "\(value)")
      #expect(finding.rule == "handoff-server")
      #expect(finding.severity == .error, "\(value)")
      #expect(finding.message.contains(says), "\(value): \(finding.message)")
      #expect(finding.location?.file.hasSuffix(file) == true, "\(value)")
    }
  }

  @Test func theCarriedValueNamesTheFieldNotItsKey() {
    #expect(HandoffField.carried(by: "handoff.callbackCode") == .code)
    #expect(HandoffField.carried(by: "codeVerifier") == .verifier)
    #expect(HandoffField.carried(by: "codeChallenge") == .challenge)
    #expect(HandoffField.carried(by: "code_challenge_method") == .other)
    #expect(HandoffField.carried(by: "result.state") == .state)
    #expect(HandoffField.carried(by: "purpose") == .purpose)
    #expect(HandoffField.carried(by: "locale") == .other)
  }

  /// Shapes a correct app may write that must not read as a refusal, and shapes of a wrong
  /// one that must.
  @Test func theFieldsAreReadAsFastifyTakesThem() throws {
    func route(_ routes: String) throws -> HandoffRoute {
      try #require(try build([Self.routes: routes]).bridge?.handoffServer.routes?.exchange?.value)
    }
    // A field read with a fallback, a rest element: not required.
    let lenient = try route(
      """
      export async function mobileAuthRoutes(app: FastifyInstance) {
        app.post("/mobile-auth/exchange", async (request, reply) => {
          const { callbackCode, codeVerifier, state = "", ...rest } = request.body;
          const next = request.body.returnTo ?? "/";
          return handoff.redeem(callbackCode, codeVerifier, state, next, rest);
        });
      }
      """)
    #expect(lenient.required == ["callbackCode", "codeVerifier"])
    // JSON-style quoted keys, the two-argument form, and a nested object's own
    // `additionalProperties: false` that does not make the body strict.
    let quoted = try route(
      """
      const exchangeBody = {
        "type": "object",
        "required": ["callbackCode", "codeVerifier"],
        "properties": {
          "callbackCode": { "type": "string", "minLength": 16 },
          "codeVerifier": { "type": "string", "maxLength": 128 },
          "meta": { "type": "object", "additionalProperties": false },
        },
      };
      export async function mobileAuthRoutes(app: FastifyInstance) {
        app.post("/mobile-auth/exchange", {
          schema: { body: exchangeBody },
          handler: async (request) => handoff.redeem(request.body),
        });
      }
      """)
    #expect(quoted.required == ["callbackCode", "codeVerifier"])
    #expect(quoted.accepted == nil)
    #expect(quoted.bounds["callbackCode"] == HandoffFieldBounds(minLength: 16))
    #expect(quoted.bounds["codeVerifier"] == HandoffFieldBounds(maxLength: 128))
    // A schema qualify does not resolve: its fields are not guessed from the handler.
    let imported = try route(
      """
      import { exchangeBody } from "./schemas";
      export async function mobileAuthRoutes(app: FastifyInstance) {
        app.post("/mobile-auth/exchange", { schema: { body: schemas.exchange } }, async (request) => {
          return handoff.redeem(request.body.code);
        });
      }
      """)
    #expect(imported.required.isEmpty)
    #expect(imported.unread != nil)
    // A call that writes more of the path than the route's own must write the prefix.
    let served = HandoffRoute(
      path: "/mobile-auth/exchange", prefix: "/api", required: [], fieldsFrom: "test")
    func call(_ path: String) -> HandoffCall { HandoffCall(path: path, fields: []) }
    #expect(served.reaches(call("/mobile-auth/exchange")))
    #expect(served.reaches(call("/api/mobile-auth/exchange")))
    #expect(!served.reaches(call("/v2/mobile-auth/exchange")))
    #expect(!served.reaches(call("/mobile-auth/redeem")))
  }

  @Test func thePurposesAreALiteralUnionAndKeysSayWhatTheyCarry() throws {
    let session = "apps/mobile/src/auth/SystemAuthSession.ts"
    let text = try String(
      contentsOfFile: Fixtures.bridgeApp + "/" + session, encoding: .utf8)
    let union = #"export type AuthPurpose = "sign-in" | "link-provider" | "add-passkey";"#
    #expect(text.contains(union))
    // Over several lines, as a formatter writes a long union.
    let wrapped = text.replacingOccurrences(
      of: union,
      with:
        "export type AuthPurpose =\n  | \"sign-in\"\n  | \"link-provider\"\n  | \"add-passkey\";")
    #expect(
      try self.build([session: wrapped]).bridge?.handoff.purposes?.value
        == ["sign-in", "link-provider", "add-passkey"])
    // A member that is another type's name: the purposes are not known, and nothing is said.
    let named = text.replacingOccurrences(
      of: union, with: #"export type AuthPurpose = SharedPurpose | "add-passkey";"#)
    let build = try self.build([session: named])
    #expect(build.bridge?.handoff.purposes == nil)
    #expect(BuildGuards.findings(for: build).filter { $0.value == "SharedPurpose" }.isEmpty)
    // A key that names its field wins over a value that mentions another.
    let page = "apps/web/src/features/mobile/MobileAuthPage.tsx"
    let original = try String(contentsOfFile: Fixtures.bridgeApp + "/" + page, encoding: .utf8)
    let computed = original.replacingOccurrences(
      of: "JSON.stringify({ purpose, state, codeChallenge })",
      with: "JSON.stringify({ purpose, state, codeChallenge: await s256(verifier) })")
    #expect(computed != original)
    let issue = try #require(try self.build([page: computed]).bridge?.issueCall?.value)
    #expect(issue.key(.challenge) == "codeChallenge")
    #expect(issue.key(.verifier) == nil)
  }
}
