// swift-tools-version:6.0
// libFuzzer targets for nbgw's parsers of untrusted bytes (docs/fuzzing.md). Build and run with
// tools/fuzz.sh; never part of the main build.
//
// Why a package of its own, made of the main package's real sources: the parsers' modules are
// compiled here again, with coverage instrumentation and AddressSanitizer (`--sanitize=fuzzer
// --sanitize=address` applies to every module of a build), without compiling the rest of the
// product (NIO, Hummingbird, BoringSSL, GRDB: minutes under ASan, nothing a parser touches).
// Sources/ holds symlinks: a whole module folder where the module is light (DeviceIdentity,
// NBGWCore, Pairing, ATKit), the parsing files alone where it is not (Provisioning's CSV reader, Ingest's
// request decoding, TuyaCloud's envelope and models, Daemon's configuration reader). The fuzzed
// code is the shipped code, file for file; a parser file that starts to need another file breaks
// this build (CI builds it), and the fix is one more symlink. `-enable-testing` lets the targets
// reach the internal entry points (`fastParse`, `StrictJSON.flatObject`) without widening the
// main package's API.
import PackageDescription

let testable: [SwiftSetting] = [.unsafeFlags(["-enable-testing"])]
let harness: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + ["FuzzSupport"],
        path: "Targets/\(name)",
        swiftSettings: harness
    )
}

let package = Package(
    name: "nbgw-fuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // The main package's modules (symlinked sources, see above).
        .target(name: "DeviceIdentity", swiftSettings: testable),
        .target(name: "NBGWCore", dependencies: ["CLinux"], swiftSettings: testable),
        // The four fields of the console's configuration that [console] sets (NotBuilt.swift).
        .target(name: "Console"),
        .target(name: "Pairing", dependencies: ["DeviceIdentity", "NBGWCore"], swiftSettings: testable),
        .systemLibrary(name: "CLinux"),
        .target(name: "PosixSupport", dependencies: ["CLinux"], swiftSettings: testable),
        .target(name: "ATKit", dependencies: ["CLinux", "PosixSupport"], swiftSettings: testable),
        .target(name: "TestClocks", dependencies: ["NBGWCore"]),
        .target(name: "Provisioning", swiftSettings: testable),
        .target(name: "Ingest", dependencies: ["NBGWCore"], swiftSettings: testable),
        .target(
            name: "Cloud",
            dependencies: ["DeviceIdentity", "NBGWCore", "Pairing", .product(name: "Logging", package: "swift-log")],
            swiftSettings: testable
        ),
        // TuyaCloud: the envelope and API models, and the HTTP cloud's adapter facts with the
        // configuration files they use; HTTPCloud itself is declared without its HTTP client
        // (Sources/TuyaCloud/NotBuilt.swift says why).
        .target(
            name: "TuyaCloud",
            dependencies: [
                "Cloud", "DeviceIdentity", "NBGWCore", "Pairing", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testable
        ),
        // KiiCloud: the adapter facts and configuration files as shipped, the class without its
        // HTTP client (Sources/KiiCloud/NotBuilt.swift).
        .target(
            name: "KiiCloud",
            dependencies: [
                "Cloud", "DeviceIdentity", "NBGWCore", "Pairing", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testable
        ),
        .target(
            name: "CloudCatalogue",
            dependencies: [
                "Cloud", "TuyaCloud", "KiiCloud", "NBGWCore", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testable
        ),
        .systemLibrary(name: "CUDev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(
            name: "Discovery",
            dependencies: ["CUDev", "PosixSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: testable
        ),
        // Control: the protocol's constants and messages only (the default socket path is rendered).
        .target(name: "Control", swiftSettings: testable),
        // Labels: the label's values and style ([labels] in the daemon's config) and the QR matrix
        // (libqrencode); the cairo renderer is not needed by the config reader.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "Labels", dependencies: ["CQREncode"], swiftSettings: testable),
        .target(
            name: "Daemon",
            dependencies: [
                "NBGWCore", "Pairing", "Cloud", "CloudCatalogue", "Discovery", "Control", "Labels", "Console",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: testable
        ),

        // What the targets share: checks that say what broke, seeded split plans.
        .target(name: "FuzzSupport", path: "Support/FuzzSupport"),

        fuzzer("fuzz-qr", ["Pairing", "NBGWCore", "DeviceIdentity"]),
        fuzzer("fuzz-matter", ["Pairing"]),
        fuzzer("fuzz-at-framer", ["ATKit"]),
        fuzzer("fuzz-at-classifier", ["ATKit"]),
        fuzzer("fuzz-at-session", ["ATKit", "TestClocks"]),
        fuzzer("fuzz-at-command-line", ["ATKit"]),
        fuzzer("fuzz-csv", ["Provisioning"]),
        fuzzer("fuzz-toml", ["Daemon"]),
        fuzzer("fuzz-ingest-json", ["Ingest"]),
        fuzzer("fuzz-tuya-envelope", ["TuyaCloud"]),
    ]
)
