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
