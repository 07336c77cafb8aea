// swift-tools-version:6.0
// nbgw: NB-IoT / cellular modem registration gateway. Layer map and dependency rule: docs/architecture.md.
import PackageDescription

let package = Package(
    name: "nbgw",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "nbgw", targets: ["nbgw"]),
        .executable(name: "nbgw-cloud-emulator", targets: ["nbgw-cloud-emulator"]),
        .library(name: "ATKit", targets: ["ATKit"]),
        .library(name: "Pairing", targets: ["Pairing"]),
        .library(name: "Registry", targets: ["Registry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // Layer 0: pure value types and parsers; Foundation only.
        .target(name: "DeviceIdentity"),
        .target(name: "Pairing", dependencies: ["DeviceIdentity"]),
        .target(name: "ATKit"),

        // The modem simulator: pseudo-terminals playing module families, for tests, demo and benchmarks.
        .target(name: "ModemSimulatorKit", path: "tools/modem-sim/Sources"),
        .executableTarget(
            name: "nbgw-modem-sim",
            dependencies: [
                "ModemSimulatorKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/modem-sim/main"
        ),

        // Layer 1: the SQLite registry (GRDB on the system libsqlite3; CSQLite for the batch hot path).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "Registry",
            dependencies: [
                "DeviceIdentity", "Pairing", "CSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),

        // Layer 2: the cloud behind one interface (embedded local for now).
        .target(
            name: "Cloud",
            dependencies: [
                "DeviceIdentity", "Pairing", "Registry",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 2: the signed HTTP cloud (Tuya OpenAPI conventions) behind the same CloudService.
        .target(
            name: "TuyaCloud",
            dependencies: [
                "DeviceIdentity", "Pairing", "Registry", "Cloud",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // A cloud emulator for tests, the demo and evaluators: real signatures, tokens, strong binding.
        .executableTarget(
            name: "nbgw-cloud-emulator",
            dependencies: [
                "CloudEmulatorKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/cloud-emulator/main"
        ),
        .target(
            name: "CloudEmulatorKit",
            dependencies: [
                "DeviceIdentity", "Pairing", "TuyaCloud",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/cloud-emulator/Sources"
        ),

        // Layer 3: the QR ingest HTTP API (Hummingbird), run by nbgwd or `nbgw ingest serve`.
        .target(
            name: "Ingest",
            dependencies: [
                "DeviceIdentity", "Pairing", "Registry", "Cloud", "Provisioning",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 3: the one code path for registering and binding, shared by CLI, CSV, HTTP and daemon.
        .target(
            name: "Provisioning",
            dependencies: [
                "DeviceIdentity", "Pairing", "Registry", "Cloud",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // Layer 4: thin executables.
        .executableTarget(
            name: "nbgw",
            dependencies: [
                "DeviceIdentity", "Pairing", "Registry", "Cloud", "Provisioning", "ATKit", "TuyaCloud", "Ingest",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .testTarget(name: "DeviceIdentityTests", dependencies: ["DeviceIdentity"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "DeviceIdentity"]),
        .testTarget(name: "ATKitTests", dependencies: ["ATKit"]),
        .testTarget(name: "ModemProbeTests", dependencies: ["ATKit", "ModemSimulatorKit"]),
        .testTarget(
            name: "RegistryTests",
            dependencies: ["Registry", "Pairing", "DeviceIdentity", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "ProvisioningTests",
            dependencies: ["Provisioning", "Cloud", "Registry", "Pairing", "DeviceIdentity"]
        ),
        .testTarget(
            name: "TuyaCloudTests",
            dependencies: [
                "TuyaCloud", "CloudEmulatorKit", "Cloud", "Registry", "Pairing", "DeviceIdentity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "Ingest", "Provisioning", "Cloud", "Registry", "Pairing", "DeviceIdentity",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(name: "nbgwTests", dependencies: ["nbgw", "Registry", "Pairing", "DeviceIdentity"]),
    ]
)
