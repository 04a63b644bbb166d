// swift-tools-version:6.2
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode is the default of tools 6.2; these add the stricter checks
/// the project relies on (no accidental existentials, imports visible only where they are written).
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Debian packages that provide each C library (the `-dev` package carries the pkg-config file and headers).
let package = Package(
    name: "CheckInKiosk",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kiosk", targets: ["kiosk"]),
        // MARK: Cards and check-in store
        .executable(name: "kiosk-bench", targets: ["kiosk-bench"]),
        .executable(name: "kiosk-store-stress", targets: ["kiosk-store-stress"]),
        // NFC reader (libnfc) and its PN532 emulator
        .executable(name: "pn532-emulator", targets: ["pn532-emulator"]),
        .executable(name: "kiosk-bench-nfc", targets: ["kiosk-bench-nfc"]),
        // Camera (libzbar video), its probe and benchmark
        .executable(name: "kiosk-camera-probe", targets: ["kiosk-camera-probe"]),
        .executable(name: "kiosk-bench-camera", targets: ["kiosk-bench-camera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // MARK: Devices (GPIO lights/buttons, receipt printer): errno as a typed error
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // MARK: The daemon: one service per device loop, graceful shutdown on SIGTERM
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: C libraries (pkg-config system-library targets)
        .systemLibrary(name: "CKioskOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CKioskZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CKioskNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
        .systemLibrary(name: "CKioskGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CKioskSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CKioskQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CKioskPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CKioskZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // MARK: Pure Swift
        .target(
            name: "KioskCore",
            dependencies: [
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                "KioskProto", // venue codes: generated protobuf messages
            ],
            swiftSettings: strictness
        ),

        // MARK: Thin owners of the C libraries
        .target(name: "KioskOpenSSL", dependencies: ["CKioskOpenSSL", "KioskCore"], swiftSettings: strictness),

        // MARK: Reports leaving the kiosk (export, upload)
        .target(
            name: "KioskReporting",
            dependencies: [
                "KioskCore",
                "KioskZip", // CWA hourly warning packages are zip archives
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "KioskPrinter", // the report conversation prints receipts
            ],
            swiftSettings: strictness
        ),

        // MARK: The health authority's side: verification codes, accepted uploads, signed warning packages
        .target(
            name: "KioskAuthority",
            dependencies: [
                "KioskCore",
                "KioskOpenSSL",
                "KioskReporting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), // the bound port, for `kiosk authority serve`
            ],
            swiftSettings: strictness
        ),

        // MARK: Venue codes (KioskProto, KioskZBar)
        .target(
            name: "KioskProto",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["proto"],
            swiftSettings: strictness
        ),
        .target(name: "KioskZBar", dependencies: ["CKioskZBar", "CKioskPNG"], swiftSettings: strictness),

        // Venue code parser fuzz target: libFuzzer entry with -DKIOSK_FUZZ (Tests/scripts/20-fuzz-venue.sh), a corpus
        // replayer otherwise.
        .executableTarget(name: "kiosk-fuzz-venue", dependencies: ["KioskCore", "KioskOpenSSL"], swiftSettings: strictness),

        // MARK: Executables
        .executableTarget(
            name: "kiosk",
            dependencies: [
                "KioskCore",
                "KioskOpenSSL",
                "KioskZBar", // venue codes: `kiosk decode` of images
                "KioskSystem", // configuration: `kiosk config check | show`
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "KioskDaemon", // `kiosk run`, `kiosk simulate`, `kiosk status`
                "KioskSelfTest", // `kiosk selftest`
                // `kiosk report` and `kiosk authority`
                "KioskStore", "KioskReporting", "KioskPrinter", "KioskAuthority",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Cards and check-in store (store, clock, fakes, stress helper, benchmark)
        .target(
            name: "KioskStore",
            dependencies: ["KioskCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictness
        ),
        .systemLibrary(name: "CKioskTime"),
        .target(name: "KioskSystem", dependencies: ["KioskCore", "CKioskTime"], swiftSettings: strictness),
        .target(name: "KioskTesting", dependencies: ["KioskCore"], swiftSettings: strictness),
        .executableTarget(
            name: "kiosk-store-stress",
            dependencies: ["KioskCore", "KioskOpenSSL", "KioskStore"],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench",
            dependencies: [
                "KioskCore",
                "KioskOpenSSL",
                "KioskStore",
                "KioskTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskCoreTests",
            dependencies: [
                "KioskCore", "KioskTesting", "KioskOpenSSL", "KioskProto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskStoreTests",
            dependencies: ["KioskCore", "KioskStore", "KioskTesting", "KioskOpenSSL"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskSystemTests",
            dependencies: ["KioskSystem", "KioskCore", "KioskTesting", "KioskOpenSSL"],
            swiftSettings: strictness
        ),
        // MARK: Devices: GPIO lights, buzzer, buttons (libgpiod v1) and the ESC/POS receipt printer
        .target(
            name: "KioskGPIO",
            dependencies: [
                "CKioskGPIOD", "KioskCore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictness
        ),
        .target(
            name: "KioskPrinter",
            dependencies: ["CKioskQRencode", "KioskCore", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-gpio-check",
            dependencies: [
                "KioskGPIO", "KioskCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskGPIOTests",
            dependencies: ["KioskGPIO", "KioskCore", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskPrinterTests",
            dependencies: [
                "KioskPrinter", "KioskCore", "KioskTesting", "KioskZBar", "KioskOpenSSL",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictness
        ),
        // MARK: NFC reader (libnfc), the PN532 emulator and their benchmark
        .systemLibrary(name: "CKioskPTY"),
        .target(name: "KioskPN532Emulator", dependencies: ["CKioskPTY"], swiftSettings: strictness),
        .target(
            name: "KioskNFC",
            dependencies: ["CKioskNFC", "KioskCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness
        ),
        .executableTarget(name: "pn532-emulator", dependencies: ["KioskPN532Emulator", "KioskCore"], swiftSettings: strictness),
        .executableTarget(
            name: "kiosk-bench-nfc",
            dependencies: ["KioskNFC", "KioskPN532Emulator", "KioskCore", "KioskOpenSSL"],
            swiftSettings: strictness
        ),
        .testTarget(name: "KioskPN532EmulatorTests", dependencies: ["KioskPN532Emulator"], swiftSettings: strictness),
        .testTarget(
            name: "KioskNFCTests",
            dependencies: ["KioskNFC", "KioskPN532Emulator", "KioskCore", "KioskOpenSSL", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness
        ),

        // MARK: Tests
        .testTarget(name: "KioskReportingTests", dependencies: ["KioskReporting", "KioskCore", "KioskOpenSSL", "KioskTesting", "KioskPrinter"], swiftSettings: strictness),
        .testTarget(
            name: "KioskAuthorityTests",
            dependencies: [
                "KioskAuthority", "KioskCore", "KioskOpenSSL", "KioskReporting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(name: "KioskOpenSSLTests", dependencies: ["KioskOpenSSL", "KioskCore"], swiftSettings: strictness),
        // Venue codes
        .testTarget(
            name: "KioskZBarTests",
            dependencies: ["KioskZBar", "KioskCore", "KioskOpenSSL"],
            exclude: ["Fixtures"],
            swiftSettings: strictness
        ),
        // MARK: Station: the kiosk's behaviour (CheckInMachine in KioskCore) and the runner that carries it out
        .target(
            name: "KioskStation",
            dependencies: ["KioskCore", "KioskPrinter", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskStationTests",
            dependencies: [
                "KioskStation", "KioskCore", "KioskPrinter", "KioskStore", "KioskTesting", "KioskOpenSSL", "KioskZBar",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictness
        ),
        // MARK: The daemon (`kiosk run`, simulation, control socket, metrics)
        .target(
            name: "KioskDaemon",
            dependencies: [
                "KioskCore", "KioskSystem", "KioskNFC", "KioskPN532Emulator", "KioskStore", "KioskOpenSSL",
                "KioskPrinter", "KioskGPIO", "KioskReporting", "KioskStation", "KioskZBar", "KioskCamera",
                "KioskTesting", // the simulated printer renders receipts with the ESC/POS interpreter
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench-daemon",
            dependencies: ["KioskDaemon", "KioskCore", "KioskStation", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskDaemonTests",
            dependencies: ["KioskDaemon", "KioskCore", "KioskTesting", "KioskOpenSSL", "KioskPrinter", "KioskZBar", "CKioskSQLite"],
            swiftSettings: strictness
        ),
        // `kiosk report` and `kiosk authority`, run as a subprocess
        .testTarget(
            name: "KioskCommandTests",
            dependencies: [
                "KioskCore", "KioskStore", "KioskOpenSSL", "KioskReporting", "KioskAuthority", "KioskTesting", "KioskZBar",
            ],
            swiftSettings: strictness
        ),
            // MARK: Camera (libzbar video), `kiosk selftest`, the V4L2 stand-in for tests and the camera benchmark
        .target(
            name: "KioskCamera",
            dependencies: [
                "CKioskZBar", "KioskZBar", "KioskCore", "KioskPrinter", // KioskPrinter: libqrencode for shown codes
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictness
        ),
        .target(
            name: "KioskSelfTest",
            dependencies: ["KioskCamera", "KioskCore", "KioskNFC", "KioskGPIO", "KioskPrinter"],
            swiftSettings: strictness
        ),
        // Test support: the V4L2 stand-in (C source compiled by the tests, loaded with LD_PRELOAD), test frames,
        // helper processes.
        .target(
            name: "KioskCameraTesting",
            dependencies: ["KioskZBar", "KioskCore"],
            exclude: ["shim"],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-camera-probe",
            dependencies: ["KioskCamera", "KioskCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictness
        ),
        // libzbar called directly from C: the benchmark's baseline
        .target(name: "CKioskZBarBaseline", linkerSettings: [.linkedLibrary("zbar")]),
        .executableTarget(
            name: "kiosk-bench-camera",
            dependencies: ["CKioskZBarBaseline", "KioskCamera", "KioskCameraTesting", "KioskCore", "KioskZBar"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskCameraTests",
            dependencies: [
                "KioskCamera", "KioskCameraTesting", "KioskCore", "KioskZBar",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskSelfTestTests",
            dependencies: [
                "KioskSelfTest", "KioskCameraTesting", "KioskCore", "KioskPN532Emulator", "KioskCamera", "KioskZBar",
            ],
            swiftSettings: strictness
        ),
        // MARK: CWA hourly warning packages (zip over zlib)
        .target(name: "KioskZip", dependencies: ["CKioskZlib"], swiftSettings: strictness),
        .testTarget(name: "KioskZipTests", dependencies: ["KioskZip"], swiftSettings: strictness),
    ]
)
