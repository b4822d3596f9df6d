import Foundation
import QualifyCore

/// A ZIP archive (PKWARE APPNOTE): written with stored entries, read through the central
/// directory. The bundles OTA ships are real zips with `index.html` at the root.
public struct ZipArchive: Sendable {
  public struct Entry: Sendable, Equatable {
    public var name: String
    public var data: [UInt8]
    /// Whether the reader could read the content (stored entries; deflated ones are listed
    /// by name only).
    public var readable: Bool

    public init(name: String, data: [UInt8], readable: Bool = true) {
      self.name = name
      self.data = data
      self.readable = readable
    }
  }

  public var entries: [Entry]

  public init(entries: [Entry]) {
    self.entries = entries
  }

  /// The entry named `name`.
  public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

  /// Zips the files below `directory` (sorted, relative names).
  public static func zipping(directory: URL) throws -> ZipArchive {
    var entries: [Entry] = []
    let root = directory.standardizedFileURL.path
    guard
      let walker = FileManager.default.enumerator(
        at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    else {
      throw InputError("cannot read \(directory.path)")
    }
    for case let url as URL in walker {
      guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
        let data = FileManager.default.contents(atPath: url.path)
      else { continue }
      let name = String(url.standardizedFileURL.path.dropFirst(root.count + 1))
      entries.append(Entry(name: name, data: Array(data)))
    }
    return ZipArchive(entries: entries.sorted { $0.name < $1.name })
  }

  // MARK: Writing

  /// The archive's bytes: stored entries, a central directory, the end record.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    var central: [UInt8] = []
    for entry in entries {
      let name = Array(entry.name.utf8)
      let crc = CRC32.checksum(entry.data)
      let offset = UInt32(out.count)
      // Fixed DOS time so the same files give the same bytes (reproducible bundles).
      let time: UInt16 = 0
      let date: UInt16 = (45 << 9) | (1 << 5) | 1  // 2025-01-01
      out += le32(0x0403_4b50) + le16(20) + le16(0x0800) + le16(0) + le16(time) + le16(date)
      out += le32(crc) + le32(UInt32(entry.data.count)) + le32(UInt32(entry.data.count))
      out += le16(UInt16(name.count)) + le16(0) + name + entry.data
      central +=
        le32(0x0201_4b50) + le16(20) + le16(20) + le16(0x0800) + le16(0) + le16(time) + le16(date)
      central += le32(crc) + le32(UInt32(entry.data.count)) + le32(UInt32(entry.data.count))
      central +=
        le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0o100644 << 16)
        + le32(offset)
      central += name
    }
    let centralOffset = UInt32(out.count)
    out += central
    out +=
      le32(0x0605_4b50) + le16(0) + le16(0) + le16(UInt16(entries.count))
      + le16(UInt16(entries.count))
    out += le32(UInt32(central.count)) + le32(centralOffset) + le16(0)
    return out
  }

  // MARK: Reading

  // MARK: Reading (ZipArchive+Reading.swift)

  private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
  private func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) }
  }
  static func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
    i + 1 < b.count ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : 0
  }
  static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
    i + 3 < b.count ? (0..<4).reduce(0) { $0 | UInt32(b[i + $1]) << (8 * $1) } : 0
  }
}

/// A malformed archive.
public struct ZipError: Error, CustomStringConvertible, Sendable {
  public var description: String
  /// The archive is well formed enough to read but would unpack differently on a device (a
  /// link, a duplicate, disagreeing headers, overlapping entries): a hostile bundle.
  public var isUnsafe: Bool
  public init(_ description: String, unsafe: Bool = false) {
    self.description = description
    self.isUnsafe = unsafe
  }
}

/// CRC-32 (IEEE 802.3), as ZIP uses it.
public enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  public static func checksum(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }
}
