internal import Foundation
public import KioskCore
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// Reads the kiosk's configuration the way the daemon starts: the JSON file, then `KIOSK_<SECTION>_<KEY>`
/// environment variables over it, then the credentials it needs from `$CREDENTIALS_DIRECTORY` (systemd
/// `LoadCredential=`). The parsing and checking is `KioskConfiguration.parse` (pure); this type only does the I/O.
public struct ConfigurationLoader: Sendable {
    /// Where the systemd unit points the daemon (`ConfigurationDirectory=kiosk`).
    public static let defaultPath = "/etc/kiosk/kiosk.json"
    /// Larger files are refused rather than read (a configuration is a few kilobytes).
    public static let maximumFileSize = 1 << 20
    /// Larger credentials are refused (a PEM key is under 1 KiB).
    public static let maximumCredentialSize = 64 * 1024

    public var path: String
    public var environment: [String: String]
    /// Where credentials are read from; nil: none can be read.
    public var credentialsDirectory: String?
    /// Where a file a credential names (a token's PIN) is looked for when no credentials directory is given.
    public static let defaultCredentialsDirectory = "/etc/kiosk/credentials"

    /// The path of the credential `name`: in the credentials directory, else in `defaultCredentialsDirectory`.
    public func credentialPath(_ name: String) -> String {
        "\(credentialsDirectory ?? Self.defaultCredentialsDirectory)/\(name)"
    }

    /// - Parameters:
    ///   - environment: the variables to apply; nil: this process's environment.
    ///   - credentialsDirectory: defaults to `$CREDENTIALS_DIRECTORY` from `environment`.
    public init(
        path: String = ConfigurationLoader.defaultPath, environment: [String: String]? = nil,
        credentialsDirectory: String? = nil
    ) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.path = path
        self.environment = environment
        let fromEnvironment = environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
        self.credentialsDirectory = credentialsDirectory ?? fromEnvironment
    }

    /// The configuration with its secrets.
    public struct Loaded: Sendable {
        public var configuration: KioskConfiguration
        public var secrets: ConfigurationSecrets
    }

    /// Reads the file and the environment; every problem at once.
    public func loadConfiguration() throws(ConfigurationError) -> KioskConfiguration {
        let text = try readFile()
        return try KioskConfiguration.parse(json: text, environment: environment)
    }

    /// Reads the file, the environment and the needed credentials. Problems in the file and environment are
    /// reported first (credentials depend on them), then every credential problem.
    public func load() throws(ConfigurationError) -> Loaded {
        let configuration = try loadConfiguration()
        let secrets = try configuration.secrets(lookup: readCredential)
        return Loaded(configuration: configuration, secrets: secrets)
    }

    private func readFile() throws(ConfigurationError) -> String {
        let bytes: [UInt8]
        switch Self.readSmallFile(path, limit: Self.maximumFileSize) {
        case .success(let read): bytes = read
        case .failure(let failure):
            throw ConfigurationError(problems: [
                ConfigurationProblem(path: "", message: "cannot read \(path): \(failure.reason)")
            ])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(problems: [ConfigurationProblem(path: "", message: "\(path) is not UTF-8 text")])
        }
        return text
    }

    /// One credential: the file `name` under the credentials directory.
    public func readCredential(_ name: String) -> CredentialLookup {
        guard let directory = credentialsDirectory else { return .noCredentialsDirectory }
        switch Self.readSmallFile(directory + "/" + name, limit: Self.maximumCredentialSize) {
        case .success(let bytes): return .found(bytes)
        case .failure(let failure) where failure.code == ENOENT: return .missing
        case .failure(let failure): return .unreadable(reason: failure.reason)
        }
    }

    struct ReadFailure: Error {
        var code: Int32
        var reason: String
    }

    /// The whole file, or why not (errno and its text; never the content).
    static func readSmallFile(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        // A FIFO blocks in open until a writer comes, so even open may be interrupted.
        let descriptor = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return .failure(failure(errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(failure(errno)) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(ReadFailure(code: EISDIR, reason: "not a regular file"))
        }
        var bytes: [UInt8] = []
        // Sized once, so that growing the array leaves no copies of a credential in freed memory.
        bytes.reserveCapacity(min(Int(status.st_size), limit) + 1)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.retrying { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { return .failure(failure(errno)) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { return .failure(ReadFailure(code: EFBIG, reason: "larger than \(limit) bytes")) }
        }
        // The chunk may hold the end of a credential.
        chunk.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
        return .success(bytes)
    }

    private static func failure(_ code: Int32) -> ReadFailure {
        ReadFailure(code: code, reason: String(cString: strerror(code)))
    }
}
