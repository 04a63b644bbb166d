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
        // NFC reader (libnfc) and its PN532 emulator
        .executable(name: "pn532-emulator", targets: ["pn532-emulator"]),
        .executable(name: "kiosk-bench-nfc", targets: ["kiosk-bench-nfc"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
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

        // MARK: Pure Swift
        .target(
            name: "KioskCore",
            dependencies: [
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Thin owners of the C libraries
        .target(name: "KioskOpenSSL", dependencies: ["CKioskOpenSSL", "KioskCore"], swiftSettings: strictness),

        // MARK: Executables
        .executableTarget(
            name: "kiosk",
            dependencies: [
                "KioskCore",
                "KioskOpenSSL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .testTarget(name: "KioskCoreCardTests", dependencies: ["KioskCore", "KioskOpenSSL"], swiftSettings: strictness),

        // MARK: Tests
        .testTarget(name: "KioskOpenSSLTests", dependencies: ["KioskOpenSSL", "KioskCore"], swiftSettings: strictness),
    ]
)
