import ArgumentParser
import Foundation
import KioskAuthority
import KioskCore
import KioskExchange
import KioskOpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// `kiosk-authority …`: the test centre's and health authority's side — signing key, verification codes, the upload
/// endpoint, accepting receipts and exported files, contact tracers' venue warnings, publishing signed packages.
@main
struct Authority: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk-authority",
        abstract: "The health authority's tool: verification codes, uploads, venue warnings, signed warning packages.",
        discussion: """
            Everything lives in one directory (--dir, mode 0700): the P-256 signing key (signing-key.pem, mode \
            0600) and its public key (signing-key.pub.pem), the issued codes (only their hashes) and the pending \
            records under state/, and the published packages with their signed index under www/. Nothing records \
            where an upload came from, and no report content is printed or logged.
            """,
        subcommands: [
            AuthorityInit.self, AuthorityIssueCode.self, AuthorityServe.self, AuthorityAccept.self,
            AuthorityWarnVenueCWA.self,
            AuthorityWarnVenue.self, AuthorityPublish.self,
        ]
    )
}

/// The authority's directory: key files, `state/` (private) and `www/` (what is published).
struct AuthorityDirectory {
    static let keyName = "signing-key.pem"
    static let publicKeyName = "signing-key.pub.pem"

    let path: String
    var keyPath: String { path + "/" + Self.keyName }
    var publicKeyPath: String { path + "/" + Self.publicKeyName }
    var statePath: String { path + "/state" }
    var publishPath: String { path + "/www" }
    /// CWA hourly packages: pending records, and what is published (served under `/cwa/`).
    var cwaStatePath: String { statePath + "/cwa" }
    var cwaPublishPath: String { publishPath + "/cwa" }

    /// Creates the directory (0700) with a fresh signing key (0600); refuses to replace an existing key.
    static func create(at path: String) throws(AuthorityToolError) -> (AuthorityDirectory, ECDSAPrivateKey) {
        let directory = AuthorityDirectory(path: path)
        if FileManager.default.fileExists(atPath: directory.keyPath) { throw .keyExists(path) }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw .notADirectory(path) }
        } else if mkdir(path, 0o700) != 0 {
            throw .cannotWrite(path, errnoText())
        }
        guard chmod(path, 0o700) == 0 else { throw .cannotWrite(path, errnoText()) }
        let key: ECDSAPrivateKey
        do { key = try ECDSAPrivateKey() } catch { throw .crypto(error.description) }
        var pem = Array(key.pemRepresentation.utf8)
        defer { OpenSSLCrypto().wipe(&pem) }
        do {
            // AtomicFile writes with mode 0600.
            try AtomicFile.write(pem, named: keyName, in: path)
            let publicPEM = try key.publicKey().pemRepresentation
            try AtomicFile.write(Array(publicPEM.utf8), named: publicKeyName, in: path)
            chmod(directory.publicKeyPath, 0o644)
        } catch let error as ExportError {
            throw .cannotWrite(path, error.description)
        } catch {
            throw .crypto("\(error)")
        }
        return (directory, key)
    }

    /// Opens an initialized directory and reads its signing key.
    static func open(_ path: String) throws(AuthorityToolError) -> (AuthorityDirectory, ECDSAPrivateKey) {
        let directory = AuthorityDirectory(path: path)
        guard var bytes = FileManager.default.contents(atPath: directory.keyPath).map([UInt8].init) else {
            throw .notInitialized(path)
        }
        defer { OpenSSLCrypto().wipe(&bytes) }
        do {
            return (directory, try ECDSAPrivateKey(pem: String(decoding: bytes, as: UTF8.self)))
        } catch {
            throw .unreadableKey(directory.keyPath)
        }
    }

    /// The publisher over `state/` and `www/`; `state/` is owner-only.
    func publisher(key: ECDSAPrivateKey) throws(AuthorityToolError) -> WarningPublisher {
        try ownerOnlyState {
            try WarningPublisher(stateDirectory: statePath, publishDirectory: publishPath, signer: key)
        }
    }

    /// The CWA hourly-package publisher over `state/cwa/` and `www/cwa/`, signing with the same key.
    func cwaPublisher(key: ECDSAPrivateKey) throws(AuthorityToolError) -> CWAHourlyPublisher {
        try ownerOnlyState {
            try CWAHourlyPublisher(stateDirectory: cwaStatePath, publishDirectory: cwaPublishPath, signer: key)
        }
    }

    /// Opens a publisher (which creates its folders), then makes `state/` owner-only.
    private func ownerOnlyState<Publisher>(_ open: () throws -> Publisher) throws(AuthorityToolError) -> Publisher {
        do {
            let publisher = try open()
            chmod(statePath, 0o700)
            return publisher
        } catch {
            throw .cannotWrite(path, "\(error)")
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// What went wrong in `kiosk-authority`; the text says what to do and carries no report content.
enum AuthorityToolError: Error, CustomStringConvertible {
    case keyExists(String)
    case notADirectory(String)
    case notInitialized(String)
    case unreadableKey(String)
    case cannotWrite(String, String)
    case crypto(String)

    var description: String {
        switch self {
        case .keyExists(let path):
            "\(path) already holds a signing key; a new key would make every kiosk reject new packages. Use another --dir."
        case .notADirectory(let path): "\(path) is not a directory."
        case .notInitialized(let path):
            "There is no signing key in \(path): run `kiosk-authority init --dir \(path)` first."
        case .unreadableKey(let path): "The signing key in \(path) cannot be read (damaged, or not a P-256 key)."
        case .cannotWrite(let path, let reason): "Cannot write in \(path): \(reason)"
        case .crypto(let reason): "OpenSSL failed: \(reason)"
        }
    }
}

/// Shared parsing and output of the authority subcommands.
enum AuthorityText {
    static func fail(_ message: String, code: Int32 = 1) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(code)
    }

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Seconds in `24h`, `3d`, `90m`, `45s` or plain seconds; nil if unreadable or not positive.
    static func duration(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = text.lowercased()
        var unit: Int64 = 1
        if let last = digits.last, let factor = units[last] {
            unit = factor
            digits.removeLast()
        }
        guard let value = Int64(digits), value > 0, value <= Int64.max / unit else { return nil }
        return value * unit
    }

    /// UNIX seconds of `YYYY-MM-DD HH:MM` (UTC), `YYYY-MM-DDTHH:MM[:SS][Z]`, or plain UNIX seconds.
    static func time(_ text: String) -> Int64? {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds],
        ] {
            let iso = ISO8601DateFormatter()
            iso.formatOptions = options
            if let date = iso.date(from: text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        }
        var normalized = text.replacingOccurrences(of: " ", with: "T")
        if normalized.hasSuffix("Z") { normalized.removeLast() }
        if normalized.filter({ $0 == ":" }).count == 1 { normalized += ":00" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.date(from: normalized).map { Int64($0.timeIntervalSince1970) }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
