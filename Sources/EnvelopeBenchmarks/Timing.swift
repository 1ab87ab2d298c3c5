import Foundation

/// Runs contenders interleaved, round after round, and keeps each one's median.
struct Comparison {
  let title: String
  let bytes: Int
  let iterations: Int
  var contenders: [(name: String, body: () throws -> Void)] = []

  mutating func add(_ name: String, _ body: @escaping () throws -> Void) {
    contenders.append((name, body))
  }

  /// Seconds per iteration, median over rounds, in the order added. `alternating`: every
  /// other round runs the contenders in reverse order, so that none always runs right after
  /// the same other one (for contenders whose difference is a few percent).
  func run(rounds: Int, alternating: Bool = false) throws -> [Double] {
    var samples = Array(repeating: [Double](), count: contenders.count)
    for contender in contenders { try contender.body() }  // warm up
    for round in 0..<rounds {
      let order = Array(contenders.enumerated())
      for (position, contender) in alternating && round % 2 == 1 ? order.reversed() : order {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try contender.body() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        samples[position].append(elapsed / Double(iterations))
      }
    }
    return samples.map { $0.sorted()[$0.count / 2] }
  }

  /// Prints MB/s (when `bytes` > 0) and each contender's speed relative to the first.
  func report(rounds: Int) throws -> [Double] {
    let times = try run(rounds: rounds)
    print("\n\(title)")
    for (position, contender) in contenders.enumerated() {
      let time = times[position]
      let rate =
        bytes > 0
        ? String(format: "%8.1f MB/s", Double(bytes) / time / 1e6)
        : String(format: "%8.2f µs/op", time * 1e6)
      let ratio = String(format: "%5.2fx", times[0] / time)
      let name = contender.name.padding(toLength: 40, withPad: " ", startingAt: 0)
      print("  \(name) \(rate)  \(ratio) vs \(contenders[0].name)")
    }
    return times
  }
}
