import Foundation

// The byte scan of `JSONElementFramer`: `JSONScanner`'s grammar, one byte at a time, resumable
// at any byte. String bytes that need no attention are skipped eight at a time, as the reader
// skips them.

extension JSONElementFramer {
  private static let trueBytes = Array("true".utf8)
  private static let falseBytes = Array("false".utf8)
  private static let nullBytes = Array("null".utf8)

  /// Scans one chunk.
  mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Element) throws -> Void)
    throws
  {
    let count = bytes.count
    var index = 0
    while index < count {
      let byte = bytes[index]
      switch state {
      case .start:
        if byte == 0xEF {
          state = .bom
          bomMatched = 1
          index += 1
        } else {
          state = .value
          closes = false
        }
      case .bom:
        // A byte order mark, or an 0xEF that starts no value (the reader's error at offset 0).
        guard byte == (bomMatched == 1 ? 0xBB : 0xBF) else {
          throw failure(.unexpectedCharacter(0xEF, expected: "a value"), atAbsolute: 0)
        }
        bomMatched += 1
        index += 1
        if bomMatched == 3 { state = .value }
      case .value:
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline:
          skipWhitespace(byte, at: &index)
        case ASCII.openBrace, ASCII.openBracket:
          guard kinds.count < maxDepth else {
            throw failure(.tooDeep(limit: maxDepth), atAbsolute: chunkOffset + index)
          }
          beginValue(at: index, byte)
          let isObject = byte == ASCII.openBrace
          kinds.append(isObject)
          if pendingMask != 0 || pendingIsTarget {
            // Only below a watched container: `levels` is a prefix of `kinds`.
            if levels.count == kinds.count - 1 {
              levels.append(Level(isObject: isObject, isTarget: pendingIsTarget, mask: pendingMask))
            }
          }
          index += 1
          state = isObject ? .key : .value
          closes = true
        case ASCII.quote:
          beginValue(at: index, byte)
          stringIsKey = false
          state = .string
          index += 1
        case ASCII.lowerT, ASCII.lowerF, ASCII.lowerN:
          beginValue(at: index, byte)
          literalBytes =
            byte == ASCII.lowerT
            ? Self.trueBytes : byte == ASCII.lowerF ? Self.falseBytes : Self.nullBytes
          literalMatched = 1
          state = .literal
          index += 1
        case ASCII.minus, ASCII.zero...ASCII.nine:
          beginValue(at: index, byte)
          numberState =
            byte == ASCII.minus ? .afterMinus : byte == ASCII.zero ? .zero : .integer
          state = .number
          index += 1
        case ASCII.closeBracket where closes && kinds.last == false:
          index += 1
          try close(at: index, in: bytes, emit)
        default:
          throw failure(
            .unexpectedCharacter(byte, expected: "a value"), atAbsolute: chunkOffset + index)
        }
      case .key:
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline:
          skipWhitespace(byte, at: &index)
        case ASCII.quote:
          keyIsWatched = levels.count == kinds.count && (levels.last?.mask ?? 0) != 0
          if keyIsWatched { key.begin(at: index, chunkOffset: chunkOffset) }
          stringIsKey = true
          state = .string
          index += 1
        case ASCII.closeBrace where closes:
          index += 1
          try close(at: index, in: bytes, emit)
        default:
          throw failure(
            .unexpectedCharacter(byte, expected: "a string key"), atAbsolute: chunkOffset + index)
        }
      case .colon:
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline:
          skipWhitespace(byte, at: &index)
        case ASCII.colon:
          index += 1
          state = .value
          closes = false
        default:
          throw failure(
            .unexpectedCharacter(byte, expected: "':'"), atAbsolute: chunkOffset + index)
        }
      case .afterValue:
        let isObject = kinds.last ?? false
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline:
          skipWhitespace(byte, at: &index)
        case ASCII.comma:
          index += 1
          state = isObject ? .key : .value
          closes = allowsTrailingCommas
        case isObject ? ASCII.closeBrace : ASCII.closeBracket:
          index += 1
          try close(at: index, in: bytes, emit)
        default:
          throw failure(
            .unexpectedCharacter(byte, expected: isObject ? "',' or '}'" : "',' or ']'"),
            atAbsolute: chunkOffset + index)
        }
      case .string:
        if expectsTrail {
          guard byte == ASCII.backslash else {
            throw failure(.loneSurrogate, atAbsolute: chunkOffset + index)
          }
          state = .escape
          index += 1
          continue
        }
        skipPlainString(bytes, at: &index)
        guard index < count else { break }
        let byte = bytes[index]
        if byte == ASCII.quote {
          index += 1
          if stringIsKey {
            try endKey(at: index, in: bytes)
          } else {
            try endValue(at: index, in: bytes, emit)
          }
        } else if byte == ASCII.backslash {
          state = .escape
          index += 1
        } else if byte < 0x20 {
          throw failure(.controlCharacterInString(byte), atAbsolute: chunkOffset + index)
        } else {
          try beginUTF8Sequence(byte, at: index)
          index += 1
        }
      case .escape:
        if expectsTrail, byte != ASCII.lowerU {
          throw failure(.loneSurrogate, atAbsolute: chunkOffset + index)
        }
        switch byte {
        case ASCII.quote, ASCII.backslash, ASCII.slash, ASCII.lowerB, ASCII.lowerF, ASCII.lowerN,
          ASCII.lowerR, ASCII.lowerT:
          state = .string
        case ASCII.lowerU:
          hexCount = 0
          hexUnit = 0
          state = .unicode
        default:
          throw failure(.invalidEscape, atAbsolute: chunkOffset + index)
        }
        index += 1
      case .unicode:
        guard let digit = hexValue(byte) else {
          throw failure(.invalidUnicodeEscape, atAbsolute: chunkOffset + index)
        }
        hexUnit = hexUnit << 4 | UInt16(digit)
        hexCount += 1
        if hexCount == 4 {
          if expectsTrail || UTF16.isTrailSurrogate(hexUnit) {
            guard expectsTrail, UTF16.isTrailSurrogate(hexUnit) else {
              throw failure(.loneSurrogate, atAbsolute: chunkOffset + index)
            }
            expectsTrail = false
          } else if UTF16.isLeadSurrogate(hexUnit) {
            expectsTrail = true
          }
          state = .string
        }
        index += 1
      case .utf8:
        guard byte >= utf8Lower && byte <= utf8Upper else {
          throw failure(.invalidUTF8, atAbsolute: chunkOffset + index)
        }
        utf8Lower = 0x80
        utf8Upper = 0xBF
        utf8Remaining -= 1
        if utf8Remaining == 0 { state = .string }
        index += 1
      case .number:
        if try scanNumber(byte, at: &index, in: bytes) { try endValue(at: index, in: bytes, emit) }
      case .literal:
        guard literalMatched < literalBytes.count, byte == literalBytes[literalMatched] else {
          throw failure(.invalidLiteral, atAbsolute: chunkOffset + index)
        }
        literalMatched += 1
        index += 1
        if literalMatched == literalBytes.count { try endValue(at: index, in: bytes, emit) }
      case .done:
        switch byte {
        case ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline:
          skipWhitespace(byte, at: &index)
        default:
          throw failure(.trailingContent, atAbsolute: chunkOffset + index)
        }
      }
    }
  }

  // MARK: - Scalars

  /// Skips one whitespace byte, counting lines.
  @inline(__always)
  private mutating func skipWhitespace(_ byte: UInt8, at index: inout Int) {
    index += 1
    if byte == ASCII.newline {
      line += 1
      lineStart = chunkOffset + index
    }
  }

  /// Skips string bytes that need no attention (ASCII, not a quote, backslash or control
  /// character), eight at a time while a whole word is left.
  @inline(__always)
  private func skipPlainString(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) {
    let count = bytes.count
    if let base = bytes.baseAddress {
      let ones: UInt64 = 0x0101_0101_0101_0101
      while count - index >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
        let quotes = word ^ (ones &* UInt64(ASCII.quote))
        let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
        let marks =
          ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes
            | (word &- ones &* 0x20) & ~word | word) & 0x8080_8080_8080_8080
        if marks != 0 {
          index += marks.trailingZeroBitCount >> 3
          return
        }
        index += 8
      }
    }
    while index < count {
      let byte = bytes[index]
      if byte == ASCII.quote || byte == ASCII.backslash || byte < 0x20 || byte >= 0x80 { return }
      index += 1
    }
  }

  /// The lead byte of a multi-byte UTF-8 sequence (RFC 3629 table, as the reader checks it).
  private mutating func beginUTF8Sequence(_ lead: UInt8, at index: Int) throws {
    utf8Lower = 0x80
    utf8Upper = 0xBF
    switch lead {
    case 0xC2...0xDF: utf8Remaining = 1
    case 0xE0: utf8Remaining = 2; utf8Lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: utf8Remaining = 2
    case 0xED: utf8Remaining = 2; utf8Upper = 0x9F
    case 0xF0: utf8Remaining = 3; utf8Lower = 0x90
    case 0xF1...0xF3: utf8Remaining = 3
    case 0xF4: utf8Remaining = 3; utf8Upper = 0x8F
    default: throw failure(.invalidUTF8, atAbsolute: chunkOffset + index)
    }
    state = .utf8
  }

  /// Reads number bytes from `index`; true when the number has ended before `index` (the byte
  /// there is the next token's).
  private mutating func scanNumber(
    _ byte: UInt8, at index: inout Int, in bytes: UnsafeBufferPointer<UInt8>
  ) throws -> Bool {
    let isDigit = byte >= ASCII.zero && byte <= ASCII.nine
    switch numberState {
    case .afterMinus:
      guard isDigit else { throw failure(.invalidNumber, atAbsolute: chunkOffset + index) }
      numberState = byte == ASCII.zero ? .zero : .integer
    case .zero, .integer, .fraction:
      if isDigit && numberState != .zero {
        index += 1
        while index < bytes.count, bytes[index] >= ASCII.zero, bytes[index] <= ASCII.nine {
          index += 1
        }
        return false
      }
      if byte == ASCII.period && numberState != .fraction {
        numberState = .afterPoint
      } else if byte == ASCII.lowerE || byte == ASCII.upperE {
        numberState = .afterExponent
      } else {
        return true
      }
    case .afterPoint:
      guard isDigit else { throw failure(.invalidNumber, atAbsolute: chunkOffset + index) }
      numberState = .fraction
    case .afterExponent:
      if byte == ASCII.plus || byte == ASCII.minus {
        numberState = .afterSign
      } else {
        guard isDigit else { throw failure(.invalidNumber, atAbsolute: chunkOffset + index) }
        numberState = .exponent
      }
    case .afterSign:
      guard isDigit else { throw failure(.invalidNumber, atAbsolute: chunkOffset + index) }
      numberState = .exponent
    case .exponent:
      guard isDigit else { return true }
    }
    index += 1
    return false
  }

  // MARK: - Values and paths

  /// A value begins at `index` with `byte`: matches it against the watched paths, begins the
  /// element or the watched value it is, and leaves in `pendingMask`/`pendingIsTarget` what a
  /// container here must track.
  private mutating func beginValue(at index: Int, _ byte: UInt8) {
    let depth = kinds.count
    var mask: UInt64 = 0
    var isElement = false
    if depth == 0 {
      mask = lengthMasks.isEmpty ? 0 : (1 << UInt64(paths.count)) &- 1
    } else if levels.count == depth {
      let parent = levels[depth - 1]
      isElement = parent.isTarget
      if parent.isObject {
        mask = parent.valueMask
      } else {
        let position = parent.count
        levels[depth - 1].count += 1
        mask = matching(parent.mask, at: depth - 1) { $0 == .index(position) }
      }
    }
    if isElement { element.begin(at: index, chunkOffset: chunkOffset) }
    pendingIsTarget = false
    if mask != 0, depth < lengthMasks.count {
      let exact = mask & lengthMasks[depth]
      if exact & 1 != 0 {
        if byte == ASCII.openBracket {
          pendingIsTarget = true
          target = .open(count: 0)
        } else {
          target = .notArray(found: Self.kind(of: byte).foundationPhrase)
        }
      }
      let watched = exact & ~1
      if watched != 0 && !value.isActive {
        value.begin(at: index, chunkOffset: chunkOffset)
        valueDepth = depth
        valueMask = watched
      }
      mask &= ~exact
    }
    pendingMask = mask
  }

  /// The paths of `mask` whose component at `level` passes `test`.
  private func matching(
    _ mask: UInt64, at level: Int, _ test: (JSONPath.Component) -> Bool
  ) -> UInt64 {
    var bits = mask
    var matched: UInt64 = 0
    while bits != 0 {
      let bit = bits.trailingZeroBitCount
      bits &= bits &- 1
      if level < paths[bit].count, test(paths[bit][level]) { matched |= 1 << UInt64(bit) }
    }
    return matched
  }

  /// A key ended before `end`: when its object is watched, the paths its value is on (the
  /// first occurrence of a key wins).
  private mutating func endKey(at end: Int, in bytes: UnsafeBufferPointer<UInt8>) throws {
    state = .colon
    guard keyIsWatched, let level = levels.last else { return }
    let text = try key.end(at: end, in: bytes) { try Self.keyText($0) }
    let depth = levels.count - 1
    let matched = matching(level.mask & ~level.claimed, at: depth) { $0 == .key(text) }
    levels[depth].claimed |= matched
    levels[depth].valueMask = matched
  }

  /// A key's text from its quoted bytes (already validated).
  private static func keyText(_ quoted: UnsafeBufferPointer<UInt8>) throws -> String {
    let inner = UnsafeBufferPointer(rebasing: quoted[1..<(quoted.count - 1)])
    if !inner.contains(ASCII.backslash) { return String(decoding: inner, as: UTF8.self) }
    return try JSONDocument.scanning(bytes: quoted, maxDepth: 1) { $0.string(0) }
  }

  /// Closes the innermost container; its closer ended before `end`.
  private mutating func close(
    at end: Int, in bytes: UnsafeBufferPointer<UInt8>, _ emit: (Element) throws -> Void
  ) throws {
    kinds.removeLast()
    if levels.count > kinds.count, levels.removeLast().isTarget {
      target = .closed(count: elementCount)
    }
    try endValue(at: end, in: bytes, emit)
  }

  /// A value ended before `end`: hands out the element, keeps the watched value.
  mutating func endValue(
    at end: Int, in bytes: UnsafeBufferPointer<UInt8>, _ emit: (Element) throws -> Void
  ) throws {
    let depth = kinds.count
    state = depth == 0 ? .done : .afterValue
    if value.isActive && depth == valueDepth {
      let json = try value.end(at: end, in: bytes) { bytes in
        try JSONDocument.scanning(bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: true) {
          try JSON(document: $0, index: 0)
        }
      }
      var bits = valueMask
      while bits != 0 {
        let bit = bits.trailingZeroBitCount
        bits &= bits &- 1
        captured[bit] = json
        if bit == 1 { codeFollowsData = target != .notSeen }
      }
    }
    if depth > 0, levels.count == depth, levels[depth - 1].isTarget {
      let index = elementCount
      elementCount += 1
      target = .open(count: elementCount)
      let offset = element.offset
      try element.end(at: end, in: bytes) { bytes in
        try emit(Element(bytes: bytes, index: index, offset: offset))
      }
    }
  }

  /// The kind of value that begins with `byte` (a valid first byte).
  private static func kind(of byte: UInt8) -> JSONToken.Kind {
    switch byte {
    case ASCII.openBrace: return .object
    case ASCII.openBracket: return .array
    case ASCII.quote: return .string
    case ASCII.lowerT: return .true
    case ASCII.lowerF: return .false
    case ASCII.lowerN: return .null
    default: return .number
    }
  }
}
