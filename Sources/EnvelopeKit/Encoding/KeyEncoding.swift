/// `myURLProperty` → `my_url_property`: `JSONEncoder`'s `.convertToSnakeCase`, word for word.
///
/// Words split where a lower-case letter is followed by an upper-case one, and before the last
/// capital of a run of capitals that is followed by a lower-case letter; words are lower-cased
/// and joined with `_`. Leading and trailing underscores stay as they are.
func convertToSnakeCase(_ key: String) -> String {
  guard !key.isEmpty else { return key }
  if key.utf8.allSatisfy({ !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) && $0 < 0x80 }) {
    return key  // no capital: nothing to split or lower
  }
  let scalars = key.unicodeScalars
  func first(in range: Range<String.Index>, _ matches: (Unicode.Scalar) -> Bool) -> Range<
    String.Index
  >? {
    var index = range.lowerBound
    while index < range.upperBound {
      let next = scalars.index(after: index)
      if matches(scalars[index]) { return index..<next }
      index = next
    }
    return nil
  }
  func isUpper(_ scalar: Unicode.Scalar) -> Bool {
    let category = scalar.properties.generalCategory
    return category == .uppercaseLetter || category == .titlecaseLetter
  }
  func isLower(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.generalCategory == .lowercaseLetter
  }

  var words: [Range<String.Index>] = []
  var wordStart = key.startIndex
  var searchRange = key.index(after: wordStart)..<key.endIndex
  while let upper = first(in: searchRange, isUpper) {
    words.append(wordStart..<upper.lowerBound)
    searchRange = upper.lowerBound..<searchRange.upperBound
    guard let lower = first(in: searchRange, isLower) else {
      wordStart = searchRange.lowerBound
      break
    }
    let afterCapital = key.index(after: upper.lowerBound)
    if lower.lowerBound == afterCapital {
      wordStart = upper.lowerBound
    } else {
      let beforeLower = key.index(before: lower.lowerBound)
      words.append(upper.lowerBound..<beforeLower)
      wordStart = beforeLower
    }
    searchRange = lower.upperBound..<searchRange.upperBound
  }
  words.append(wordStart..<searchRange.upperBound)
  return words.map { key[$0].lowercased() }.joined(separator: "_")
}

extension LenientDecoder.KeyDecodingStrategy {
  /// The JSON key this strategy reads back as `name` in the object at `path`: what
  /// `ModelEncoder(matching:)` writes. Under `.convertFromSnakeCase`, `name` as
  /// `.convertToSnakeCase` writes it when that reads back (JSONEncoder's output for camelCase
  /// keys), else `name` itself when it reads back (`AdaptivePlugin`, `URLSCM`, `myURL`); nil when
  /// neither does, and then no key does: snake case reads a key with an inner underscore
  /// unchanged only when it has no second word, so a `name` with words joined by underscores
  /// (`first_name`) is never read.
  ///
  /// The decoder's own conversion (`conversion(at:)`) is the judge of every candidate.
  func writtenKey(for name: String, at path: [any CodingKey]) -> String? {
    guard let read = conversion(at: path) else { return name }
    if case .convertFromSnakeCase = self {
      let snake = convertToSnakeCase(name)
      if read(snake) == name { return snake }
    }
    return read(name) == name ? name : nil
  }

  /// The strategy as code names it, for messages.
  var name: String {
    switch self {
    case .useDefaultKeys: ".useDefaultKeys"
    case .convertFromSnakeCase: ".convertFromSnakeCase"
    case .custom: ".custom"
    }
  }
}
