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

  /// The largest total the central directory may say its entries expand to: far above any
  /// web bundle, far below what fills a phone.
  public static let maximumExpandedSize = 512 << 20

  /// Reads an archive through its central directory, refusing what a device's unzip would
  /// read differently from qualify (PKWARE APPNOTE 4.3): a symbolic link entry, two entries
  /// with one name, a local header that disagrees with its central record, entries whose
  /// bytes overlap each other or the directory (the overlapping-file zip bomb), ZIP64, or
  /// more expanded bytes than `maximumExpandedSize`. Nothing is taken before all of it holds.
  /// - Throws: `ZipError` naming what is malformed.
  public init(bytes: [UInt8]) throws {
    guard bytes.count >= 22 else { throw ZipError("too short to be a zip (\(bytes.count) bytes)") }
    var end = bytes.count - 22
    let lowest = max(0, bytes.count - 22 - 65_535)
    while end >= lowest && ZipArchive.u32(bytes, end) != 0x0605_4b50 { end -= 1 }
    guard end >= lowest else { throw ZipError("no end-of-central-directory record: not a zip") }
    let count = Int(ZipArchive.u16(bytes, end + 10))
    let directorySize = Int(ZipArchive.u32(bytes, end + 12))
    let directoryStart = Int(ZipArchive.u32(bytes, end + 16))
    guard count != 0xFFFF, directoryStart != 0xFFFF_FFFF, directorySize != 0xFFFF_FFFF else {
      throw ZipError("a ZIP64 archive: a web bundle needs none, and qualify does not read one")
    }
    guard ZipArchive.u16(bytes, end + 8) == count, ZipArchive.u16(bytes, end + 4) == 0 else {
      throw ZipError("a multi-disk archive (the end record's counts disagree)")
    }
    var cursor = directoryStart
    var entries: [Entry] = []
    var names: Set<String> = []
    // Each entry's bytes, local header to end of data: no two may share a byte.
    var spans: [(range: Range<Int>, name: String)] = []
    var expanded = 0
    for _ in 0..<count {
      guard cursor + 46 <= bytes.count, ZipArchive.u32(bytes, cursor) == 0x0201_4b50 else {
        throw ZipError("corrupt central directory")
      }
      let madeBy = ZipArchive.u16(bytes, cursor + 4)
      let flags = ZipArchive.u16(bytes, cursor + 8)
      let method = ZipArchive.u16(bytes, cursor + 10)
      let crc = ZipArchive.u32(bytes, cursor + 16)
      let compressed = Int(ZipArchive.u32(bytes, cursor + 20))
      let uncompressed = Int(ZipArchive.u32(bytes, cursor + 24))
      let nameLength = Int(ZipArchive.u16(bytes, cursor + 28))
      let extraLength = Int(ZipArchive.u16(bytes, cursor + 30))
      let commentLength = Int(ZipArchive.u16(bytes, cursor + 32))
      let external = ZipArchive.u32(bytes, cursor + 38)
      let local = Int(ZipArchive.u32(bytes, cursor + 42))
      guard cursor + 46 + nameLength <= bytes.count else {
        throw ZipError("corrupt central directory")
      }
      let rawName = Array(bytes[(cursor + 46)..<(cursor + 46 + nameLength)])
      let name = String(decoding: rawName, as: UTF8.self)
      // Unix-made entries carry the file's mode in the high half of the external attributes.
      if madeBy >> 8 == 3, (external >> 16) & 0o170000 == 0o120000 {
        throw ZipError("\(name) is a symbolic link: a device's unzip would follow it", unsafe: true)
      }
      let key = ZipArchive.normalised(name)
      guard names.insert(key).inserted else {
        throw ZipError(
          "two entries are named \(key): which one a device unpacks depends on its unzip",
          unsafe: true)
      }
      guard local + 30 <= bytes.count, ZipArchive.u32(bytes, local) == 0x0403_4b50 else {
        throw ZipError("corrupt local header for \(name)")
      }
      let localNameLength = Int(ZipArchive.u16(bytes, local + 26))
      let localExtraLength = Int(ZipArchive.u16(bytes, local + 28))
      let localName =
        local + 30 + localNameLength <= bytes.count
        ? Array(bytes[(local + 30)..<(local + 30 + localNameLength)]) : []
      let localMethod = ZipArchive.u16(bytes, local + 8)
      let describedLater = flags & 0x0008 != 0
      let agrees =
        localName == rawName && localMethod == method
        && (describedLater
          || (ZipArchive.u32(bytes, local + 14) == crc
            && Int(ZipArchive.u32(bytes, local + 18)) == compressed
            && Int(ZipArchive.u32(bytes, local + 22)) == uncompressed))
      guard agrees else {
        throw ZipError(
          "the local header of \(name) disagrees with the central directory (name, method, CRC or sizes)",
          unsafe: true
        )
      }
      let dataStart = local + 30 + localNameLength + localExtraLength
      guard dataStart + compressed <= bytes.count else {
        throw ZipError("\(name) runs past the end of the archive")
      }
      spans.append((local..<(dataStart + compressed), name))
      expanded += uncompressed
      guard expanded <= ZipArchive.maximumExpandedSize else {
        throw ZipError(
          "the entries expand to more than \(ZipArchive.maximumExpandedSize >> 20) MiB: not a web bundle",
          unsafe: true
        )
      }
      if method == 0 {
        guard compressed == uncompressed else {
          throw ZipError("\(name) is stored, but its sizes differ", unsafe: true)
        }
        let data = Array(bytes[dataStart..<(dataStart + compressed)])
        guard CRC32.checksum(data) == crc else { throw ZipError("CRC mismatch for \(name)") }
        entries.append(Entry(name: name, data: data))
      } else {
        entries.append(Entry(name: name, data: [], readable: false))
      }
      cursor += 46 + nameLength + extraLength + commentLength
    }
    spans.append((directoryStart..<max(directoryStart, cursor), "the central directory"))
    spans.sort { $0.range.lowerBound < $1.range.lowerBound }
    for (first, second) in zip(spans, spans.dropFirst()) where first.range.overlaps(second.range) {
      throw ZipError(
        "\(first.name) and \(second.name) overlap: one stretch of bytes is unpacked twice (a zip bomb)",
        unsafe: true
      )
    }
    self.entries = entries
  }

  /// An entry's name as an unzip lands it: `./` prefixes and repeated slashes dropped.
  static func normalised(_ name: String) -> String {
    var parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    while parts.first == "." { parts.removeFirst() }
    return parts.filter { $0 != "." }.joined(separator: "/") + (name.hasSuffix("/") ? "/" : "")
  }

  private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
  private func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) }
  }
  private static func u16(_ b: [UInt8], _ i: Int) -> UInt16 {
    i + 1 < b.count ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : 0
  }
  private static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
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
