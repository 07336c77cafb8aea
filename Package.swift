// swift-tools-version:6.1
// nbgw: NB-IoT / cellular modem registration gateway. Layer map and dependency rule: docs/architecture.md.
import PackageDescription

#if canImport(Glibc)
import Glibc

/// Whether this machine's dynamic loader reads packed relative relocations (DT_RELR, glibc 2.36
/// and later). A binary linked with them does not start under an older loader, so they are only
/// asked for where the build runs on a glibc that has them (docs/operations.md, "Memory").
let loaderReadsPackedRelocations: Bool = {
    var buffer = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return false }
    // "glibc 2.36"
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let version = text.split(separator: " ").last ?? ""
    let parts = version.split(separator: ".").compactMap { Int($0) }
    guard parts.count >= 2 else { return false }
    return parts[0] > 2 || (parts[0] == 2 && parts[1] >= 36)
}()
#else
let loaderReadsPackedRelocations = false
#endif

/// How the daemon is linked for release on Linux (measured in docs/operations.md, "Memory"), with
/// lld:
/// - its functions in the order of packaging/nbgwd.order (tools/order-daemon.sh writes it): the
///   code that runs packed together, so that the 64 kB the kernel maps around each page fault hold
///   code that runs rather than its neighbours; functions the file does not name keep their place,
///   names it has that no longer exist are skipped. Full effect with tools/build-release.sh
///   (functions in sections of their own).
/// - no dynamic symbol table for its own functions (`--static-swift-stdlib` asks for one; ld.so
///   reads it on every symbol lookup at start, about 3 MB resident, and nothing needs it: the Swift
///   runtime finds metadata through its sections, crash backtraces read the file).
/// - packed relative relocations where the loader reads them: the relocation records every start
///   reads (and keeps resident: 1.7 MB dynamic, 3.4 MB static) shrink to about 50 kB.
let daemonReleaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld",
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/packaging/nbgwd.order",
            "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "--no-export-dynamic",
        ] + (loaderReadsPackedRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []),
        .when(platforms: [.linux], configuration: .release)
    )
]

let package = Package(
    name: "nbgw",
    // Linux is the target (docs/operations.md); macOS 15 is what `Synchronization.Mutex` needs where
    // the package is built on a Mac.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nbgw", targets: ["nbgw"]),
        .executable(name: "nbgwd", targets: ["nbgwd"]),
        .executable(name: "nbgw-cloud-emulator", targets: ["nbgw-cloud-emulator"]),
        .executable(name: "nbgw-kii-emulator", targets: ["nbgw-kii-emulator"]),
        .library(name: "ATKit", targets: ["ATKit"]),
        .library(name: "NBGWCore", targets: ["NBGWCore"]),
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
        // Already resolved for AsyncHTTPClient; declared because Ingest checks TLS keys with it.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Already resolved for Hummingbird; declared because the ingest listener guards its
        // connections with a channel handler of its own (NIOCore, the HTTP parts of NIOHTTPTypes).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The web console's server-side templates (HTML-escaping by default).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // Already resolved for Hummingbird; declared because the console names header fields.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // Layer 0: pure value types and parsers; Foundation only.
        .target(name: "DeviceIdentity"),
        // Layer 0: what every module may raise or read, and nothing about QR codes: errors, their codes
        // with exit codes and HTTP statuses, the wall clock, a bind's source and facts, the version.
        // CLinux: <sys/xattr.h> (SecretFileAccess reads a secret file's POSIX ACL).
        .target(name: "NBGWCore", dependencies: [.target(name: "CLinux", condition: .when(platforms: [.linux]))]),
        // Layer 0: QR payloads, Matter codes, label references and the seed's binding rules.
        .target(name: "Pairing", dependencies: ["DeviceIdentity", "NBGWCore"]),
        // Layer 0: the event loops' POSIX plumbing (wake pipe, fd poller, errno); the C library only.
        .target(name: "PosixSupport", dependencies: [.target(name: "CLinux", condition: .when(platforms: [.linux]))]),

        // Layer 1: the AT engine.
        .target(name: "ATKit", dependencies: ["PosixSupport"]),

        // The modem simulator: pseudo-terminals playing module families, for tests, demo and benchmarks.
        .target(name: "ModemSimulatorKit", dependencies: ["PosixSupport"], path: "tools/modem-sim/Sources"),
        .executableTarget(
            name: "nbgw-modem-sim",
            dependencies: [
                "ModemSimulatorKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/modem-sim/main"
        ),

        // Layer 0 (beside Pairing): labels and images, through the field's C libraries (system
        // libraries: libqrencode, cairo, zbar, libpng, libjpeg-turbo); docs/labels-and-scanning.md.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // Pure rendering: payload and text → QR matrix → PNG, SVG, PDF sheets, ZPL.
        .target(name: "Labels", dependencies: ["CQREncode", "CCairo"]),
        // The QR codes in a photo or a scan (PNG, JPEG) through zbar.
        .target(name: "QRImage", dependencies: ["CZBar", "CPNG", "CTurboJPEG"]),

        // Layer 1: the SQLite registry (GRDB on the system libsqlite3; CSQLite for the batch hot path).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // SQLite's process-wide settings, applied when a program linking the store loads.
        .target(name: "CSQLiteSettings", dependencies: ["CSQLite"]),
        .target(
            name: "Registry",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "CSQLite", "CSQLiteSettings",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The modules' credentials sealed with AES-GCM under the secrets key.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Layer 2: the cloud seam: what a cloud does (remote work only, no store type) and the
        // embedded local cloud. Adapters depend on it, never on the store.
        .target(
            name: "Cloud",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 2: the signed HTTP cloud (Tuya OpenAPI conventions) behind the same CloudService.
        .target(
            name: "TuyaCloud",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Cloud",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 2: Kii Thing-IF onboarding and thing ownership behind the same CloudService.
        .target(
            name: "KiiCloud",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Cloud",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 2: the catalogue of cloud adapters (one line each) and the one way the CLI and the
        // daemon build the configured cloud.
        .target(
            name: "CloudCatalogue",
            dependencies: [
                "Cloud", "TuyaCloud", "KiiCloud", "NBGWCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The signed cloud API's server side once: authentication, routes, rules and the envelope, behind
        // a storage seam (CloudServerStore). The emulator and nbgw-cloud serve through it.
        // What the HTTP listeners share (the ingest API, the console, the fleet cloud's nodes): a
        // TLS identity checked at start and reloadable, and the listener's connection budget.
        .target(
            name: "ServerSupport",
            dependencies: [
                "NBGWCore",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ]
        ),
        .target(
            name: "CloudServer",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "TuyaCloud",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Preference-Applied, a field name of its own.
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        // nbgw-cloud: the fleet's Private Cloud, stateless nodes on PostgreSQL (docs/fleet.md).
        .target(
            name: "FleetCloud",
            dependencies: [
                "CloudServer", "TuyaCloud", "NBGWCore", "ServerSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "nbgw-cloud",
            dependencies: [
                "FleetCloud", "CloudServer", "NBGWCore", "ServerSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Signed binds against nbgw-cloud nodes, closed or open loop (tools/bench-cloud.sh).
        .executableTarget(
            name: "nbgw-cloud-load",
            dependencies: [
                "TuyaCloud",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "tools/cloud-load"
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
                "CloudServer", "NBGWCore", "TuyaCloud",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Preference-Applied, a field name of its own.
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/cloud-emulator/Sources"
        ),

        // A Kii emulator (Thing-IF onboarding, things, ownership, users) for tests, the demo and evaluators.
        .executableTarget(
            name: "nbgw-kii-emulator",
            dependencies: [
                "KiiEmulatorKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/kii-emulator/main"
        ),
        .target(
            name: "KiiEmulatorKit",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/kii-emulator/Sources"
        ),

        // Layer 3: the QR ingest HTTP API (Hummingbird, HTTPS through NIOSSL), run by nbgwd or `nbgw ingest serve`.
        .target(
            name: "Ingest",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Registry", "Cloud", "Provisioning", "ServerSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 3: the one code path for registering and binding, shared by CLI, CSV, HTTP and daemon.
        .target(
            name: "Provisioning",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Registry", "Cloud", "Labels", "PosixSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // Layer 3: scanning sessions (stdin, evdev HID scanners, serial scanners) binding through
        // BindingService.
        .target(
            name: "Scanning",
            dependencies: ["NBGWCore", "Pairing", "Provisioning", "Registry"]
        ),

        // Layer 1 (beside ATKit): udev discovery of serial ports through the system libudev.
        .systemLibrary(name: "CUDev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // glibc headers the Glibc module leaves out (<malloc.h>, <sys/epoll.h>); part of libc.
        .systemLibrary(name: "CLinux"),
        .target(
            name: "Discovery",
            dependencies: ["CUDev", "PosixSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // Writes udev-rules/90-nbgw.rules and docs/discovery.md's module table from KnownModule.catalogue;
        // `--check` (tools/test.sh) fails while the committed files are not what it writes.
        .executableTarget(name: "nbgw-gen-udev", dependencies: ["Discovery"], path: "tools/gen-udev"),
        // umockdev's testbed (tests only): fake udev devices whose ttys are ptys we play.
        .systemLibrary(
            name: "CUMockdev",
            path: "tools/udev-testbed/CUMockdev",
            pkgConfig: "umockdev-1.0",
            providers: [.apt(["libumockdev-dev"])]
        ),
        .executableTarget(
            name: "nbgw-udev-testbed",
            dependencies: [
                "CUMockdev", "ModemSimulatorKit", "Discovery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/udev-testbed/main"
        ),

        // Layer 4: one supervisor per modem port, from probe to ready; the modem table.
        .target(
            name: "Gateway",
            dependencies: [
                "ATKit", "DeviceIdentity", "NBGWCore", "Pairing", "Registry", "Cloud", "Provisioning",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // Layer 5: the daemon's control socket protocol and its client (CLI, tests).
        .target(name: "Control", dependencies: ["Gateway", "Discovery", "NBGWCore"]),

        // Layer 5: the web console beside the ingest API (docs/console.md): operators, sessions,
        // pages; binds through Provisioning, modem actions through the control socket.
        .target(
            name: "Console",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Registry", "Cloud", "Provisioning", "Ingest", "Control",
                "Gateway", "Labels",
                // Key derivations and camera frames run on threads of their own (BoundedWorkQueue).
                "PosixSupport",
                // Camera frames decoded by zbar, as `--image` is.
                "QRImage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 5: the daemon's services (config, discovery → gateway, metrics/health, ingest, systemd).
        .target(
            name: "Daemon",
            dependencies: [
                "ATKit", "Discovery", "Gateway", "Ingest", "Registry", "Cloud", "CloudCatalogue", "Provisioning",
                "NBGWCore", "Pairing",
                "Control",
                "PosixSupport",
                // [labels]: a label file per module the gateway registers.
                "Labels",
                "Console",
                // posix_spawn's close-from and pidfd_open (the state-change hooks), SO_PEERCRED (control).
                .target(name: "CLinux", condition: .when(platforms: [.linux])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 6: thin executables.
        .executableTarget(
            name: "nbgwd",
            dependencies: [
                "Daemon", "NBGWCore",
                .target(name: "CLinux", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            linkerSettings: daemonReleaseLinking
        ),
        .executableTarget(
            name: "nbgw",
            dependencies: [
                "DeviceIdentity", "NBGWCore", "Pairing", "Registry", "Cloud", "CloudCatalogue", "Provisioning",
                "ATKit",
                "TuyaCloud", "Ingest",
                // `nbgw labels`, `nbgw scan`, `--image`.
                "Labels", "QRImage", "Scanning",
                "Gateway", "Control",
                // `nbgw operators` (the console's password hashing) and `nbgw ingest serve`'s console.
                "Console",
                // `nbgw discovery list`: udev's ports and the daemon's own config reader and decisions.
                "Discovery", "Daemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Test support shared by the suites: a Clock that moves only when a test says so.
        .target(name: "TestClocks", dependencies: ["NBGWCore"], path: "Tests/Support/TestClocks"),
        // Throwaway self-signed certificates and keys made with /usr/bin/openssl, for the TLS tests.
        .target(name: "TestCertificates", path: "Tests/Support/TestCertificates"),
        // A raw HTTP/1.1 client on loopback: bodies sent in parts or generated as they go (console batches).
        .target(name: "TestHTTP", path: "Tests/Support/TestHTTP"),
        // A private PostgreSQL cluster per test process (tools/pg-cluster.sh), a database per test.
        .target(name: "TestPostgres", dependencies: ["CLinux"], path: "Tests/Support/TestPostgres"),

        .testTarget(name: "DeviceIdentityTests", dependencies: ["DeviceIdentity"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "NBGWCore", "DeviceIdentity"]),
        .testTarget(name: "PosixSupportTests", dependencies: ["PosixSupport"]),
        .testTarget(name: "ATKitTests", dependencies: ["ATKit", "PosixSupport", "TestClocks"]),
        .testTarget(name: "ModemProbeTests", dependencies: ["ATKit", "ModemSimulatorKit", "TestClocks"]),
        .testTarget(
            name: "RegistryTests",
            dependencies: [
                "Registry", "NBGWCore", "DeviceIdentity", "TestClocks", .product(name: "GRDB", package: "GRDB.swift"),
                // setxattr: a secrets key file given a POSIX ACL.
                .target(name: "CLinux", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "ProvisioningTests",
            dependencies: [
                "Provisioning", "Cloud", "Registry", "NBGWCore", "Pairing", "DeviceIdentity",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "TuyaCloudTests",
            dependencies: [
                "TuyaCloud", "CloudEmulatorKit", "Cloud", "Provisioning", "Registry", "NBGWCore", "Pairing",
                "DeviceIdentity",
                "TestClocks",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "FleetCloudTests",
            dependencies: [
                "FleetCloud", "nbgw-cloud", "CloudServer", "TuyaCloud", "Cloud", "Provisioning", "Registry", "NBGWCore",
                "DeviceIdentity", "TestPostgres", "TestCertificates",
            ]
        ),
        .testTarget(
            name: "KiiCloudTests",
            dependencies: [
                "KiiCloud", "KiiEmulatorKit", "Cloud", "CloudCatalogue", "Provisioning", "Registry", "NBGWCore",
                "DeviceIdentity", "nbgw", "nbgwd", "nbgw-kii-emulator", "TestClocks",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "Ingest", "Provisioning", "Cloud", "Registry", "NBGWCore", "Pairing", "DeviceIdentity",
                "TestCertificates",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The store written by hand, as a member of the operators' group could.
                .product(name: "GRDB", package: "GRDB.swift"),
                // The connection guard on an embedded channel, its time moved by hand.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Its servers stopped gracefully, as the daemon stops them.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "Console", "Registry", "NBGWCore", "DeviceIdentity", "Cloud", "Ingest", "TestClocks", "PosixSupport",
                // Batches: modules registered and a job stopped by `BatchBinder`; uploads sent in parts.
                "Provisioning", "TestHTTP",
                // Camera frames drawn from real QR codes (libqrencode); labels read back with zbar.
                "Labels", "QRImage",
                // The store read raw: what sessions leave in it, and a change made by hand.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "nbgw-udev-testbed"]),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "ATKit", "ModemSimulatorKit", "Registry", "Cloud", "Provisioning", "DeviceIdentity",
                "NBGWCore",
                "TestClocks",
            ]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "Daemon", "Gateway", "Discovery", "Registry", "Cloud", "Control", "nbgwd", "nbgw-modem-sim", "nbgw",
                "TestClocks",
                // The console's batches: its [console] settings, uploads through the real listener.
                "Console", "TestHTTP",
                "TestCertificates",
                // The label files nbgwd writes, read back.
                "QRImage",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "LabelsTests", dependencies: ["Labels", "QRImage", "CCairo", "CTurboJPEG"]),
        .testTarget(
            name: "ScanningTests",
            dependencies: ["Scanning", "Provisioning", "Cloud", "Registry", "Pairing", "DeviceIdentity", "TestClocks"]
        ),
        .testTarget(
            name: "nbgwTests",
            dependencies: [
                "nbgw", "Discovery", "Registry", "DeviceIdentity", "TestCertificates", "QRImage", "Labels",
                "Provisioning",
            ]
        ),
    ]
)
