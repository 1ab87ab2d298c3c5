// MARK: - Document layout
//
// The reader turns the input bytes into a flat *tape* of `JSONToken`s in one pass. Nothing is
// decoded on the way in: a token only records where its text sits in the byte buffer.
//
//   {"id": 18, "tags": ["a"]}
//
//   index  kind    start/end (bytes)      next   count
//   0      object  0 ..< 0                6      2      ← `next` is the index after the subtree
//   1      string  2 ..< 4   "id"         2
//   2      number  7 ..< 9   18           3
//   3      string  12 ..< 16 "tags"       4
//   4      array   19 ..< 19              6      1
//   5      string  21 ..< 22 "a"          6
//
// An object's children alternate key, value; `count` is the number of pairs (stored in 16 bits,
// saturating: `JSONDocument.count(_:)` walks the rare container with 65,535 or more). Skipping a whole
// subtree is `index = token.next`, so containers never need to be walked to be stepped over.
// Strings record whether they contain escapes and non-ASCII bytes, so that the common
// escape-free case turns into a `String` with a single copy (the scanner validated its UTF-8). Numbers keep their exact lexeme until a type asks.

/// One entry of the reader's tape (16 bytes: at 100 MB of objects the tape is the decoder's
/// largest buffer, and 4 bytes a token are 0.6x the input).
struct JSONToken {
  enum Kind: UInt8 {
    case null, `true`, `false`, number, string, array, object
  }

  /// Flags for strings (`hasEscapes`, `isNonASCII`), numbers (`isInteger`: no fraction, no
  /// exponent) and objects (`hasNonASCIIKeys`: some key has escapes or non-ASCII bytes, so key
  /// lookup may need a canonical-equivalence comparison after the byte comparison).
  struct Flags: OptionSet {
    let rawValue: UInt8
    static let hasEscapes = Flags(rawValue: 1)
    static let isInteger = Flags(rawValue: 2)
    static let isNonASCII = Flags(rawValue: 4)
    static let hasNonASCIIKeys = Flags(rawValue: 8)
  }

  var kind: Kind
  var flags: Flags
  /// Element count of an array, pair count of an object, up to `UInt16.max` (which means "that
  /// many or more"); 0 for scalars. Read it with `JSONDocument.count(_:)`.
  var shortCount: UInt16 = 0
  /// First byte of the value; for strings, the first byte after the opening quote.
  var start: UInt32
  /// For scalars the end of the text (for strings, the closing quote); for containers the byte
  /// offset just after the closing bracket.
  var end: UInt32
  /// Index of the token after this value and all its children.
  var next: UInt32

  init(kind: Kind, flags: Flags = [], start: Int, end: Int, next: Int) {
    self.kind = kind
    self.flags = flags
    self.start = UInt32(truncatingIfNeeded: start)
    self.end = UInt32(truncatingIfNeeded: end)
    self.next = UInt32(truncatingIfNeeded: next)
  }
}
