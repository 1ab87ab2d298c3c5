// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "EnvelopeKit",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .library(name: "EnvelopeKit", targets: ["EnvelopeKit"]),
    .library(name: "EnvelopeNetworking", targets: ["EnvelopeNetworking"]),
    .library(name: "EnvelopeTesting", targets: ["EnvelopeTesting"]),
    .executable(name: "Demo", targets: ["Demo"]),
    .executable(name: "EnvelopeBenchmarks", targets: ["EnvelopeBenchmarks"]),
    .executable(name: "envelope", targets: ["envelope"]),
  ],
  targets: [
    .target(name: "EnvelopeKit"),
    .target(name: "EnvelopeNetworking", dependencies: ["EnvelopeKit"]),
    .target(name: "EnvelopeTesting", dependencies: ["EnvelopeKit", "EnvelopeNetworking"]),
    .target(name: "EnvelopeCommand", dependencies: ["EnvelopeKit"]),
    .executableTarget(name: "envelope", dependencies: ["EnvelopeCommand"]),
    .executableTarget(name: "Demo", dependencies: ["EnvelopeKit", "EnvelopeNetworking"]),
    .executableTarget(
      name: "EnvelopeBenchmarks", dependencies: ["EnvelopeKit", "EnvelopeNetworking"]),
    // Test-only: the loopback HTTP server (Python's standard library) the tests start and stop.
    .target(name: "LoopbackServer", path: "Tests/LoopbackServer", exclude: ["server.py"]),
    .testTarget(name: "EnvelopeKitTests", dependencies: ["EnvelopeKit"]),
    .testTarget(name: "EnvelopeCommandTests", dependencies: ["EnvelopeCommand", "EnvelopeKit"]),
    .testTarget(
      name: "EnvelopeNetworkingTests",
      dependencies: ["EnvelopeKit", "EnvelopeNetworking", "LoopbackServer"]
    ),
    .testTarget(
      name: "EnvelopeTestingTests",
      dependencies: ["EnvelopeKit", "EnvelopeNetworking", "EnvelopeTesting", "LoopbackServer"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
