extension Vocabulary {
  /// The packs of the language, in the order the reference lists them.
  public static let packs: [any ScenarioPack.Type] = [
    CorePack.self, GuardsPack.self, AuthenticationPack.self, OTAPack.self, PushPack.self,
    InstancesPack.self,
  ]
}
