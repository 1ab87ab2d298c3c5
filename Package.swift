// swift-tools-version: 6.0
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
  ],
  targets: [
    .target(name: "EnvelopeKit"),
    .target(name: "EnvelopeNetworking", dependencies: ["EnvelopeKit"]),
    .target(name: "EnvelopeTesting", dependencies: ["EnvelopeKit", "EnvelopeNetworking"]),
    .executableTarget(name: "Demo", dependencies: ["EnvelopeKit", "EnvelopeNetworking"]),
    .executableTarget(name: "EnvelopeBenchmarks", dependencies: ["EnvelopeKit"]),
    .testTarget(name: "EnvelopeKitTests", dependencies: ["EnvelopeKit"]),
    .testTarget(
      name: "EnvelopeNetworkingTests",
      dependencies: ["EnvelopeKit", "EnvelopeNetworking"],
      exclude: ["Support/server.py"]
    ),
    .testTarget(
      name: "EnvelopeTestingTests",
      dependencies: ["EnvelopeKit", "EnvelopeNetworking", "EnvelopeTesting"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
