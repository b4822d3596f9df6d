import Foundation
import QualifyCore

/// The options several commands read the same way: `--channel`, `--platform`, `--seed`.
func channelOption(_ parsed: ParsedOptions, default channel: Channel = .prod) throws -> Channel {
  guard let value = parsed.value("channel") else { return channel }
  guard let parsedChannel = Channel(rawValue: value) else {
    throw InputError(
      "unknown channel '\(value)'",
      hint: Suggestions.closest(to: value, among: Channel.allCases.map(\.rawValue)).map {
        "did you mean '\($0)'?"
      }
        ?? "channels are dev, staging and prod")
  }
  return parsedChannel
}

func platformOption(_ parsed: ParsedOptions) throws -> [Platform] {
  guard let value = parsed.value("platform") else { return Platform.allCases }
  guard let platform = Platform(rawValue: value) else {
    throw InputError("unknown platform '\(value)'", hint: "platforms are ios and android")
  }
  return [platform]
}

func seedOption(_ parsed: ParsedOptions) throws -> UInt64 {
  guard let value = parsed.value("seed") else { return UInt64.random(in: 1...999_999) }
  guard let seed = UInt64(value) else {
    throw InputError("--seed must be a non-negative whole number, got '\(value)'")
  }
  return seed
}

extension String {
  var nilIfEmpty: String? { isEmpty ? nil : self }
}
