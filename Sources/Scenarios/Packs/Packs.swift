extension Vocabulary {
  /// The pack an action or expectation phrase belongs to.
  static func pack(ofAction phrase: [String]) -> (any ScenarioPack.Type)? {
    packs.first { pack in pack.actions.contains { $0.phrase == phrase } }
  }

  static func pack(ofExpectation phrase: [String]) -> (any ScenarioPack.Type)? {
    packs.first { pack in pack.expectations.contains { $0.phrase == phrase } }
  }

  /// The packs of the language, in the order the reference lists them.
  public static let packs: [any ScenarioPack.Type] = [
    CorePack.self, GuardsPack.self, AuthenticationPack.self, OTAPack.self, PushPack.self,
    InstancesPack.self, SessionPack.self, HybridPack.self, BridgePack.self, RenderPack.self,
  ]
}
