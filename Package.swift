// swift-tools-version:6.2
import PackageDescription

// The package in layers (docs/ARCHITECTURE.md draws them and names the rules Tests/scripts/05-architecture.sh
// checks):
//   C libraries → the pure domain → thin owners of the C libraries → what crosses the kiosk's edge → the daemon →
//   simulated devices → the commands. The health authority's server is a product of its own.

/// Settings every Swift target shares: Swift 6 mode is the default of tools 6.2; these add the stricter checks
/// the project relies on (no accidental existentials, imports visible only where they are written).
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let systemPackage = Target.Dependency.product(name: "SystemPackage", package: "swift-system")

let package = Package(
    name: "CheckInKiosk",
    platforms: [.macOS(.v15)],
    products: [
        // The board's command (`kiosk run`, `kiosk simulate`, `kiosk decode`, `kiosk config`, …).
        .executable(name: "kiosk", targets: ["kiosk"]),
        // The health authority's command: verification codes, the upload endpoint, signed warning packages.
        .executable(name: "kiosk-authority", targets: ["kiosk-authority"]),
        // Tools: a PN532 reader with emulated cards on a pseudo-terminal, benchmarks, the camera probe.
        .executable(name: "pn532-emulator", targets: ["pn532-emulator"]),
        .executable(name: "kiosk-bench", targets: ["kiosk-bench"]),
        .executable(name: "kiosk-bench-nfc", targets: ["kiosk-bench-nfc"]),
        .executable(name: "kiosk-bench-camera", targets: ["kiosk-bench-camera"]),
        .executable(name: "kiosk-bench-daemon", targets: ["kiosk-bench-daemon"]),
        .executable(name: "kiosk-bench-region", targets: ["kiosk-bench-region"]),
        .executable(name: "kiosk-bench-diary", targets: ["kiosk-bench-diary"]),
        .executable(name: "kiosk-camera-probe", targets: ["kiosk-camera-probe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The health authority's server only (never linked into `kiosk`).
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
    ],
    targets: [
        // MARK: C libraries (one pkg-config system-library target per Debian -dev package)
        .systemLibrary(name: "CKioskOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CKioskZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CKioskNFC", pkgConfig: "libnfc", providers: [.apt(["libnfc-dev"])]),
        .systemLibrary(name: "CKioskGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CKioskQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CKioskPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CKioskZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CKioskCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Headers only: espeak-ng and alsa-lib are loaded at run time, when the kiosk first speaks (no pkg-config, so
        // nothing links them; their headers lie in the default include path).
        .systemLibrary(name: "CKioskEspeak", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CKioskALSA", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CKioskSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // Headers only: the PKCS #11 types and function list (p11-kit's drop-in pkcs11.h). Neither p11-kit nor any
        // PKCS #11 module is linked: the configured module is loaded at run time.
        .systemLibrary(name: "CKioskPKCS11", providers: [.apt(["libp11-kit-dev"])]),
        // libc calls the Glibc module lacks (pseudo-terminals, the kernel's clock state).
        .systemLibrary(name: "CKioskLinux"),

        // MARK: The pure domain: venue codes, cards, check-ins, retention, reports, consent, warnings, the station's
        // state machine and every port it uses. No C, no I/O, no clock.
        .target(
            name: "KioskProto",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["proto"],
            swiftSettings: strictness
        ),
        .target(
            name: "KioskCore",
            dependencies: ["KioskProto", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            // One catalog per language, built into the binary (no resource bundle to install beside it).
            resources: [
                .embedInCode("Language/catalogs/en.json"), .embedInCode("Language/catalogs/de.json"),
                .embedInCode("Language/catalogs/fr.json"), .embedInCode("Language/catalogs/it.json"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Thin owners of the C libraries (each imports only KioskCore, its own C module and the shared helper
        // KioskPOSIX)
        // The one place that retries a system call interrupted by a signal (EINTR); Glibc only, no domain logic.
        .target(name: "KioskPOSIX", swiftSettings: strictness),
        .target(name: "KioskOpenSSL", dependencies: ["CKioskOpenSSL", "KioskCore"], swiftSettings: strictness),
        // libsodium, the one owner: XSalsa20-Poly1305 (`crypto_secretbox`) for CrowdNotifier's problematic events.
        .target(name: "KioskSodium", dependencies: ["CKioskSodium", "KioskCore"], swiftSettings: strictness),
        .target(
            name: "KioskNFC",
            dependencies: ["CKioskNFC", "KioskCore", "KioskPOSIX", logging],
            swiftSettings: strictness
        ),
        .target(
            name: "KioskGPIO",
            dependencies: ["CKioskGPIOD", "KioskCore", "KioskPOSIX", systemPackage, logging],
            swiftSettings: strictness
        ),
        .target(
            name: "KioskStore",
            dependencies: ["KioskCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictness
        ),
        .target(name: "KioskZip", dependencies: ["CKioskZlib", "KioskPOSIX"], swiftSettings: strictness),
        // libzbar, the one owner: still images and the camera's video.
        .target(
            name: "KioskCamera",
            dependencies: ["CKioskZBar", "CKioskPNG", "KioskCore", logging],
            swiftSettings: strictness
        ),
        // Everything ESC/POS and QR: the encoder, receipts of every kind, libqrencode, the device.
        .target(
            name: "KioskPrinter",
            dependencies: ["CKioskQRencode", "KioskCore", "KioskPOSIX", systemPackage],
            swiftSettings: strictness
        ),
        // libcurl, the one owner: the kiosk's only HTTP client (so the board's binary links no NIO).
        .target(name: "KioskHTTP", dependencies: ["CKioskCurl", "KioskPOSIX"], swiftSettings: strictness),
        // Speech, the one owner of both its C libraries: espeak-ng (text to samples) and ALSA (samples to the jack),
        // each loaded on the first utterance and unloaded when the visitor who asked has left.
        .target(
            name: "KioskSpeech",
            dependencies: ["CKioskEspeak", "CKioskALSA", "KioskCore", logging],
            swiftSettings: strictness
        ),
        // PKCS #11, the one owner: a token's secret keys (the region's master key, the day keys), AES-CMAC, derivation
        // and wrapping inside the token; the module (SoftHSM2, tpm2-pkcs11, OpenSC) is loaded at run time. The core's
        // `RegionKeys` port served by a token (`PKCS11RegionKeys`).
        .target(
            name: "KioskPKCS11", dependencies: ["KioskCore", "CKioskPKCS11", "KioskPOSIX"], swiftSettings: strictness),

        // MARK: What crosses the kiosk's edge: the report conversation and delivery (USB stick, upload), the
        // warnings feeds (CKPW/1 and CWA hourly packages, downloaded or from a stick).
        .target(
            name: "KioskExchange",
            dependencies: [
                "KioskCore", "KioskPrinter", "KioskZip", "KioskHTTP", "KioskPOSIX",
            ],
            swiftSettings: strictness
        ),

        // MARK: The daemon: the station runner, one service per device loop, the control socket, metrics, the
        // screen page, systemd, selftest. One composition root, handed its devices.
        .target(
            name: "KioskDaemon",
            dependencies: [
                "KioskCore", "CKioskLinux", "KioskOpenSSL", "KioskSodium", "KioskNFC", "KioskGPIO", "KioskStore",
                "KioskCamera", "KioskPrinter", "KioskSpeech", "KioskExchange", "KioskPOSIX", "KioskPKCS11", logging,
                systemPackage,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Every fake and simulated device: the PN532 emulator, recorded lights, a printer writing files
        // (through the ESC/POS interpreter), a camera fed rendered frames, a speaker writing WAV files, a movable
        // clock, in-memory stores.
        .target(
            name: "KioskSimulation",
            dependencies: [
                "KioskCore", "KioskDaemon", "KioskCamera", "KioskPrinter", "KioskSpeech", "KioskPOSIX", "CKioskLinux",
                systemPackage, logging,
            ],
            // The receipt font the ESC/POS interpreter draws text with, built into the module (no bundle to install).
            resources: [.embedInCode("Fonts/KioskReceipt-12x24.bdf")],
            swiftSettings: strictness
        ),

        // MARK: The health authority's server: verification codes, accepted uploads, signed warning packages.
        .target(
            name: "KioskAuthority",
            dependencies: [
                "KioskCore", "KioskOpenSSL", "KioskSodium", "KioskExchange", logging,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Commands
        .executableTarget(
            name: "kiosk",
            dependencies: [
                "KioskCore", "KioskOpenSSL", "KioskCamera", "KioskStore", "KioskPrinter", "KioskExchange",
                "KioskDaemon", "KioskSimulation", "KioskPKCS11", argumentParser, logging,
            ],
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-authority",
            dependencies: [
                "KioskAuthority", "KioskCore", "KioskOpenSSL", "KioskSodium", "KioskExchange", argumentParser, logging,
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictness
        ),

        // MARK: Tools: benchmarks and probes
        .executableTarget(
            name: "pn532-emulator",
            dependencies: ["KioskSimulation", "KioskCore", "KioskOpenSSL"],
            path: "Tools/pn532-emulator",
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench",
            dependencies: [
                "KioskCore", "KioskOpenSSL", "KioskSodium", "KioskStore", "KioskSimulation", "KioskExchange",
                argumentParser,
            ],
            path: "Tools/kiosk-bench",
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench-diary",
            dependencies: ["KioskNFC", "KioskSimulation", "KioskCore", "KioskOpenSSL", "KioskPKCS11"],
            path: "Tools/kiosk-bench-diary",
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench-nfc",
            dependencies: ["KioskNFC", "KioskSimulation", "KioskCore", "KioskOpenSSL", logging],
            path: "Tools/kiosk-bench-nfc",
            swiftSettings: strictness
        ),
        // libzbar called directly from C: the camera benchmark's baseline.
        .target(name: "CKioskZBarBaseline", path: "Tools/CKioskZBarBaseline", linkerSettings: [.linkedLibrary("zbar")]),
        .executableTarget(
            name: "kiosk-bench-camera",
            dependencies: ["CKioskZBarBaseline", "KioskCamera", "KioskCameraTesting", "KioskSimulation", "KioskCore"],
            path: "Tools/kiosk-bench-camera",
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-bench-daemon",
            dependencies: [
                "KioskDaemon", "KioskSimulation", "KioskCore", "KioskGPIO", "KioskStore", "KioskOpenSSL", logging,
            ],
            path: "Tools/kiosk-bench-daemon",
            swiftSettings: strictness
        ),
        // A region's published warnings in one compact index: memory, build time, a card's tap.
        .executableTarget(
            name: "kiosk-bench-region",
            dependencies: ["KioskCore", "KioskExchange", "KioskOpenSSL", argumentParser],
            path: "Tools/kiosk-bench-region",
            swiftSettings: strictness
        ),
        .executableTarget(
            name: "kiosk-camera-probe",
            dependencies: ["KioskCamera", "KioskCore", logging],
            path: "Tools/kiosk-camera-probe",
            swiftSettings: strictness
        ),

        // MARK: Test helpers: processes and stand-ins the tests and Tests/scripts drive
        // The V4L2 stand-in (C source compiled by the tests, loaded with LD_PRELOAD), test frames, child processes.
        .target(
            name: "KioskCameraTesting",
            dependencies: ["KioskCamera", "KioskCore"],
            path: "Tests/Helpers/KioskCameraTesting",
            exclude: ["shim"],
            swiftSettings: strictness
        ),
        // A logger that keeps what it is given, for the tests that check what is logged (and what never is).
        .target(
            name: "KioskLogTesting",
            dependencies: [logging],
            path: "Tests/Helpers/KioskLogTesting",
            swiftSettings: strictness
        ),
        // Fuzz targets for every parser of outside input (KIOSK_FUZZ_TARGET picks one): libFuzzer entry with
        // -DKIOSK_FUZZ (Tests/scripts/20-fuzz.sh), a corpus replayer and seed writer otherwise.
        .executableTarget(
            name: "kiosk-fuzz",
            dependencies: [
                "KioskCore", "KioskOpenSSL", "KioskZip", "KioskExchange", "KioskDaemon", "KioskProto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            path: "Tests/Helpers/kiosk-fuzz",
            swiftSettings: strictness
        ),
        // libfreefare, for the DESFire judge only (Debian's libfreefare-dev; never linked by a production target).
        .systemLibrary(
            name: "CFreefareJudge", path: "Tests/Helpers/CFreefareJudge", pkgConfig: "libfreefare",
            providers: [.apt(["libfreefare-dev"])]
        ),
        // Reads a DESFire card through libnfc and libfreefare and prints what it finds: the independent judge of the
        // emulated DESFire card (Tests/KioskSimulationTests/EmulatedDESFireJudgeTests.swift).
        .executableTarget(
            name: "desfire-judge",
            dependencies: ["CFreefareJudge"],
            path: "Tests/Helpers/desfire-judge"
        ),
        // GPIO checks run inside the test VM against gpio-sim (Tests/scripts/40-gpio-qemu.sh).
        .executableTarget(
            name: "kiosk-gpio-check",
            dependencies: ["KioskGPIO", "KioskCore", logging, systemPackage],
            path: "Tests/Helpers/kiosk-gpio-check",
            swiftSettings: strictness
        ),
        // A writer killed with SIGKILL mid-burst, for the store's durability tests.
        .executableTarget(
            name: "kiosk-store-stress",
            dependencies: ["KioskCore", "KioskOpenSSL", "KioskStore"],
            path: "Tests/Helpers/kiosk-store-stress",
            swiftSettings: strictness
        ),

        // MARK: Tests (Tests/<Module>Tests mirrors each module)
        .testTarget(
            name: "KioskCoreTests",
            dependencies: [
                "KioskCore", "KioskSimulation", "KioskOpenSSL", "KioskSodium", "KioskProto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(name: "KioskPOSIXTests", dependencies: ["KioskPOSIX"], swiftSettings: strictness),
        .testTarget(name: "KioskOpenSSLTests", dependencies: ["KioskOpenSSL", "KioskCore"], swiftSettings: strictness),
        .testTarget(name: "KioskSodiumTests", dependencies: ["KioskSodium", "KioskCore"], swiftSettings: strictness),
        .testTarget(
            name: "KioskNFCTests",
            dependencies: ["KioskNFC", "KioskSimulation", "KioskCore", "KioskOpenSSL", logging],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskGPIOTests",
            dependencies: ["KioskGPIO", "KioskCore", systemPackage],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskStoreTests",
            dependencies: ["KioskCore", "KioskStore", "KioskSimulation", "KioskOpenSSL"],
            swiftSettings: strictness
        ),
        .testTarget(name: "KioskZipTests", dependencies: ["KioskZip"], swiftSettings: strictness),
        .testTarget(name: "KioskHTTPTests", dependencies: ["KioskHTTP"], swiftSettings: strictness),
        // Against a real SoftHSM2 (Debian's softhsm2), one token directory per test.
        .testTarget(
            name: "KioskPKCS11Tests",
            dependencies: [
                "KioskPKCS11", "KioskCore", "KioskOpenSSL", "KioskNFC", "KioskSimulation", "KioskDaemon", logging,
            ],
            swiftSettings: strictness),
        .testTarget(
            name: "KioskSpeechTests",
            dependencies: ["KioskSpeech", "KioskCore", "KioskLogTesting", logging],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskCameraTests",
            dependencies: [
                "KioskCamera", "KioskCameraTesting", "KioskSimulation", "KioskCore", "KioskOpenSSL", logging,
            ],
            exclude: ["Scanner/Fixtures"],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskPrinterTests",
            dependencies: [
                "KioskPrinter", "KioskCore", "KioskSimulation", "KioskCamera", "KioskOpenSSL", systemPackage,
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskExchangeTests",
            dependencies: [
                "KioskExchange", "KioskCore", "KioskOpenSSL", "KioskSodium", "KioskSimulation", "KioskPrinter",
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskDaemonTests",
            dependencies: [
                "KioskDaemon", "KioskSimulation", "KioskCore", "KioskOpenSSL", "KioskPrinter", "KioskCamera",
                "KioskCameraTesting", "KioskLogTesting", "KioskStore", "KioskGPIO", "KioskNFC", "KioskExchange",
                logging,
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskSimulationTests",
            dependencies: [
                "KioskSimulation", "KioskDaemon", "KioskCore", "KioskCamera", "KioskCameraTesting", "KioskPrinter",
                "KioskSpeech", "KioskOpenSSL",
            ],
            swiftSettings: strictness
        ),
        .testTarget(
            name: "KioskAuthorityTests",
            dependencies: [
                "KioskAuthority", "KioskCore", "KioskOpenSSL", "KioskSodium", "KioskExchange", "KioskSimulation",
                "KioskZip", "KioskLogTesting", .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strictness
        ),
        // `kiosk report` and `kiosk-authority`, run as subprocesses.
        .testTarget(
            name: "KioskCommandTests",
            dependencies: [
                "KioskCore", "KioskStore", "KioskOpenSSL", "KioskExchange", "KioskAuthority", "KioskSimulation",
                "KioskCamera",
            ],
            swiftSettings: strictness
        ),
    ]
)
