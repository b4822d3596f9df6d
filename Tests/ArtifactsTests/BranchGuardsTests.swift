import Foundation
import Testing

@testable import Artifacts

/// The conditions a statement runs under, as the readers of real shells' code find them.
@Suite struct BranchGuardsTests {
  func guards(_ body: String, of marker: String = "load()") -> [String] {
    guard let at = body.range(of: marker)?.lowerBound else { return ["no marker"] }
    return BranchGuards.guards(of: at, in: body).map { "\($0.1 ? "" : "!")\($0.0)" }
  }

  @Test func eachFormOfGuardGivesTheConditionItNeeds() {
    #expect(guards("if (a) { load(); }") == ["a"])
    #expect(guards("if (a) { x(); } else { load(); }") == ["!a"])
    #expect(guards("if (a) return;\nload();") == ["!a"])
    #expect(guards("if (a) { x(); return; }\nload();") == ["!a"])
    // The else returns and the then-branch runs on: what follows needs the condition.
    #expect(guards("if (a) { x(); } else { return; }\nload();") == ["a"])
    #expect(guards("if (a) x(); else return;\nload();") == ["a"])
  }

  @Test func aReturnThatDoesNotEncloseTheStatementGuardsNothing() {
    #expect(guards("if (b) { if (a) { x(); } else { return; } }\nload();") == [])
    #expect(guards("if (a) { x(); } else { y(); }\nload();") == [])
    #expect(guards("if (a) { x(); } else { if (b) { return; } }\nload();") == [])
    #expect(guards("load();\nif (a) { x(); } else { return; }") == [])
    // A chain's else-if that returns: `load()` runs on `a || !b`, which no one guard says.
    #expect(guards("if (a) { x(); } else if (b) return;\nload();") == [])
    #expect(guards("if (a) { x(); } else if (b) { y(); } else { return; }\nload();") == [])
    // Inside the chain each branch still has its own guards.
    #expect(guards("if (a) { x(); } else if (b) { load(); }") == ["!a", "b"])
  }
}
