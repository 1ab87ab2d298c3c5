import EnvelopeKit

/// The outline `envelope inspect` prints: one line per path with its JSON kind and an example.
enum Outline {
  static func walk(_ value: JSON, path: String, into lines: inout [(String, String, String)]) {
    switch value {
    case .object(let object):
      lines.append((path.isEmpty ? "." : path, "object", "\(object.count) keys"))
      for (key, child) in object {
        walk(child, path: path.isEmpty ? key : path + "." + key, into: &lines)
      }
    case .array(let elements):
      lines.append((path.isEmpty ? "[]" : path, "array", "\(elements.count) items"))
      // Elements merged: each path once, with the first example found.
      var seen: [String: Int] = [:]
      for element in elements {
        var elementLines: [(String, String, String)] = []
        walk(element, path: path + "[]", into: &elementLines)
        for line in elementLines {
          if let index = seen[line.0] {
            if lines[index].1 != line.1, !lines[index].1.contains(line.1) {
              lines[index].1 += "|" + line.1
            }
          } else {
            seen[line.0] = lines.count
            lines.append(line)
          }
        }
      }
    default:
      lines.append((path.isEmpty ? "." : path, value.kindName, value.snippet()))
    }
  }
}
