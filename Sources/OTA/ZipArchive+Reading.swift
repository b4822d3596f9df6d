import CZlib
import Foundation

extension ZipArchive {
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
      let record = try ZipArchive.record(
        in: bytes, at: cursor, budget: ZipArchive.maximumExpandedSize - expanded)
      guard names.insert(ZipArchive.normalised(record.entry.name)).inserted else {
        throw ZipError(
          "two entries are named \(ZipArchive.normalised(record.entry.name)): which one a device unpacks depends on its unzip",
          unsafe: true)
      }
      expanded += record.uncompressed
      guard expanded <= ZipArchive.maximumExpandedSize else {
        throw ZipError(
          "the entries expand to more than \(ZipArchive.maximumExpandedSize >> 20) MiB: not a web bundle",
          unsafe: true)
      }
      entries.append(record.entry)
      spans.append((record.span, record.entry.name))
      cursor = record.next
    }
    spans.append((directoryStart..<max(directoryStart, cursor), "the central directory"))
    try ZipArchive.refuseOverlaps(spans)
    self.init(entries: entries)
  }

  /// One central directory record at `cursor` and the local header it points at, checked
  /// against each other.
  private static func record(in bytes: [UInt8], at cursor: Int, budget: Int) throws -> (
    entry: Entry, span: Range<Int>, uncompressed: Int, next: Int
  ) {
    guard cursor + 46 <= bytes.count, u32(bytes, cursor) == 0x0201_4b50 else {
      throw ZipError("corrupt central directory")
    }
    let madeBy = u16(bytes, cursor + 4)
    let flags = u16(bytes, cursor + 8)
    let method = u16(bytes, cursor + 10)
    let crc = u32(bytes, cursor + 16)
    let compressed = Int(u32(bytes, cursor + 20))
    let uncompressed = Int(u32(bytes, cursor + 24))
    let nameLength = Int(u16(bytes, cursor + 28))
    let extraLength = Int(u16(bytes, cursor + 30))
    let commentLength = Int(u16(bytes, cursor + 32))
    let external = u32(bytes, cursor + 38)
    let local = Int(u32(bytes, cursor + 42))
    guard cursor + 46 + nameLength <= bytes.count else {
      throw ZipError("corrupt central directory")
    }
    let rawName = Array(bytes[(cursor + 46)..<(cursor + 46 + nameLength)])
    let name = String(decoding: rawName, as: UTF8.self)
    // Unix-made entries carry the file's mode in the high half of the external attributes.
    if madeBy >> 8 == 3, (external >> 16) & 0o170000 == 0o120000 {
      throw ZipError("\(name) is a symbolic link: a device's unzip would follow it", unsafe: true)
    }
    guard local + 30 <= bytes.count, u32(bytes, local) == 0x0403_4b50 else {
      throw ZipError("corrupt local header for \(name)")
    }
    let localNameLength = Int(u16(bytes, local + 26))
    let localExtraLength = Int(u16(bytes, local + 28))
    let localName =
      local + 30 + localNameLength <= bytes.count
      ? Array(bytes[(local + 30)..<(local + 30 + localNameLength)]) : []
    // Bit 3: sizes and CRC follow the data in a descriptor; the local header holds zeros.
    let describedLater = flags & 0x0008 != 0
    let agrees =
      localName == rawName && u16(bytes, local + 8) == method
      && (describedLater
        || (u32(bytes, local + 14) == crc && Int(u32(bytes, local + 18)) == compressed
          && Int(u32(bytes, local + 22)) == uncompressed))
    guard agrees else {
      throw ZipError(
        "the local header of \(name) disagrees with the central directory (name, method, CRC or sizes)",
        unsafe: true)
    }
    let dataStart = local + 30 + localNameLength + localExtraLength
    guard dataStart + compressed <= bytes.count else {
      throw ZipError("\(name) runs past the end of the archive")
    }
    let entry: Entry
    if method == 0 {
      guard compressed == uncompressed else {
        throw ZipError("\(name) is stored, but its sizes differ", unsafe: true)
      }
      let data = Array(bytes[dataStart..<(dataStart + compressed)])
      guard CRC32.checksum(data) == crc else { throw ZipError("CRC mismatch for \(name)") }
      entry = Entry(name: name, data: data)
    } else if method == 8 {
      // Nothing is inflated past what the whole archive may expand to.
      guard uncompressed <= budget else {
        throw ZipError(
          "the entries expand to more than \(ZipArchive.maximumExpandedSize >> 20) MiB: not a web bundle",
          unsafe: true)
      }
      // Deflate, as Capgo's CLI zips a bundle: inflated to the size the directory gives (the
      // total of which is bounded above), and the CRC checked like a stored entry's.
      let data = try ZipArchive.inflate(
        Array(bytes[dataStart..<(dataStart + compressed)]), to: uncompressed, name: name)
      guard CRC32.checksum(data) == crc else { throw ZipError("CRC mismatch for \(name)") }
      entry = Entry(name: name, data: data)
    } else {
      entry = Entry(name: name, data: [], readable: false)
    }
    return (
      entry, local..<(dataStart + compressed), uncompressed,
      cursor + 46 + nameLength + extraLength + commentLength
    )
  }

  /// A raw deflate stream inflated to exactly `size` bytes; more or fewer is a malformed entry.
  static func inflate(_ input: [UInt8], to size: Int, name: String) throws -> [UInt8] {
    var stream = z_stream()
    guard CZlib_inflateInitRaw(&stream) == Z_OK else {
      throw ZipError("zlib could not start inflating \(name)")
    }
    defer { inflateEnd(&stream) }
    // One byte more than announced: a stream that fills it expands past its header.
    var output = [UInt8](repeating: 0, count: size + 1)
    var input = input
    let status = input.withUnsafeMutableBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        stream.next_in = source.baseAddress
        stream.avail_in = uInt(source.count)
        stream.next_out = target.baseAddress
        stream.avail_out = uInt(target.count)
        return CZlib.inflate(&stream, Z_FINISH)
      }
    }
    guard status == Z_STREAM_END, Int(stream.total_out) == size else {
      throw ZipError(
        "\(name) does not inflate to the \(size) bytes its header gives (zlib status \(status))",
        unsafe: true)
    }
    return Array(output.prefix(size))
  }

  /// Refuses two stretches of the archive that share a byte: one stretch unpacked twice.
  private static func refuseOverlaps(_ spans: [(range: Range<Int>, name: String)]) throws {
    let sorted = spans.sorted { $0.range.lowerBound < $1.range.lowerBound }
    for (first, second) in zip(sorted, sorted.dropFirst()) where first.range.overlaps(second.range)
    {
      throw ZipError(
        "\(first.name) and \(second.name) overlap: one stretch of bytes is unpacked twice (a zip bomb)",
        unsafe: true)
    }
  }

  /// An entry's name as an unzip lands it: `./` prefixes and repeated slashes dropped.
  static func normalised(_ name: String) -> String {
    var parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    while parts.first == "." { parts.removeFirst() }
    return parts.filter { $0 != "." }.joined(separator: "/") + (name.hasSuffix("/") ? "/" : "")
  }
}
