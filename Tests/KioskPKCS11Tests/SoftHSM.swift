import Foundation
import KioskPKCS11

/// A SoftHSM2 of one test's own: a temporary token directory, a configuration file pointing at it
/// (`SOFTHSM2_CONF`), and tokens initialized in it with `softhsm2-util`. Removed by `remove()`.
///
/// SoftHSM2 reads `SOFTHSM2_CONF` when it is initialized, and a module is initialized once per process: the tests
/// that load it run one at a time (their suite is serialized), each closing its module before the next loads it.
struct SoftHSM {
    static let utility = "/usr/bin/softhsm2-util"
    /// The security officer's PIN of every test token (the tests never log in as the security officer).
    static let securityOfficerPIN = "87654321"

    /// SoftHSM2 (Debian's softhsm2) is not installed: the suite fails with what to install, it is never skipped.
    struct NotInstalled: Error, CustomStringConvertible {
        let missing: String
        var description: String {
            "SoftHSM2 is not installed (\(missing) is missing): install Debian's softhsm2"
                + " (`apt-get install softhsm2`; `board/kiosk-dev test` installs it)"
        }
    }

    struct UtilityFailed: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "softhsm2-util exited with \(status): \(output)" }
    }

    let directory: String
    /// The configuration file, for `SOFTHSM2_CONF`.
    let configuration: String

    /// - Parameter required: the files SoftHSM2 brings that the tests use (its utility and its module).
    init(required: [String] = [Self.utility, PKCS11Module.softHSM2Path]) throws {
        for path in required where !FileManager.default.fileExists(atPath: path) {
            throw NotInstalled(missing: path)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-softhsm-\(UUID().uuidString)")
        let tokens = url.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        directory = url.path
        configuration = url.appendingPathComponent("softhsm2.conf").path
        let text = """
            directories.tokendir = \(tokens.path)
            objectstore.backend = file
            log.level = ERROR
            slots.removable = false

            """
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
    }

    /// Initializes a token in the first free slot (`softhsm2-util --init-token --free`).
    func initToken(label: String, pin: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.utility)
        process.arguments = [
            "--init-token", "--free", "--label", label, "--so-pin", Self.securityOfficerPIN, "--pin", pin,
        ]
        process.environment = ["SOFTHSM2_CONF": configuration, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw UtilityFailed(status: process.terminationStatus, output: String(decoding: said, as: UTF8.self))
        }
    }

    /// SoftHSM2's module, initialized with this configuration.
    func load() throws(PKCS11Error) -> PKCS11Module {
        setenv("SOFTHSM2_CONF", configuration, 1)
        return try PKCS11Module(path: PKCS11Module.softHSM2Path)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from hexadecimal text (spaces ignored).
    init(hex: String) {
        let digits = [Unicode.Scalar](hex.unicodeScalars.filter { !$0.properties.isWhitespace })
        self = stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(String.UnicodeScalarView(digits[index...index + 1])), radix: 16)!
        }
    }
}
