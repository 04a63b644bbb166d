/// The secrets the configuration refers to, read from systemd credentials (`LoadCredential=`, the files under
/// `$CREDENTIALS_DIRECTORY`), never from the configuration file. Prints as `<redacted>`; wipe it when done.
public struct ConfigurationSecrets: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The staff QR code's secret (the code's text), compared in constant time when a code is shown.
    public var staffCode: [UInt8]?
    /// Bearer token for the report upload endpoint.
    public var uploadToken: [UInt8]?
    /// The PEM public key that signs CKPW/1 warning packages (public, but from a credential when configured so).
    public var authorityPublicKeyPEM: String?
    /// The PEM public key that signs CWA warning packages.
    public var cwaPublicKeyPEM: String?

    public init(
        staffCode: [UInt8]? = nil, uploadToken: [UInt8]? = nil, authorityPublicKeyPEM: String? = nil,
        cwaPublicKeyPEM: String? = nil
    ) {
        self.staffCode = staffCode
        self.uploadToken = uploadToken
        self.authorityPublicKeyPEM = authorityPublicKeyPEM
        self.cwaPublicKeyPEM = cwaPublicKeyPEM
    }

    /// Overwrites the secret bytes with zeros and forgets them.
    public mutating func wipe(using crypto: some CryptoProvider) {
        // In place (through the optional), so the wiped buffer is the one that held the secret, not a copy.
        if staffCode != nil { crypto.wipe(&staffCode!) }
        if uploadToken != nil { crypto.wipe(&uploadToken!) }
        staffCode = nil
        uploadToken = nil
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// What looking up one credential found.
public enum CredentialLookup: Sendable, Equatable {
    case found([UInt8])
    /// No file of that name under the credentials directory.
    case missing
    /// `$CREDENTIALS_DIRECTORY` is not set, so no credential can be read.
    case noCredentialsDirectory
    /// The file exists but could not be read; `reason` is the error (no content).
    case unreadable(reason: String)
}

extension KioskConfiguration {
    /// A credential this configuration needs.
    public struct CredentialNeed: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case staffCode, uploadToken, authorityPublicKey, cwaPublicKey }
        /// The credential's name (`staff-code`): the file name under `$CREDENTIALS_DIRECTORY`.
        public var name: String
        /// The key that names it (`staff.codeCredential`).
        public var neededBy: String
        public var kind: Kind
    }

    /// The credentials the daemon must read at start, given what is switched on.
    public var neededCredentials: [CredentialNeed] {
        var needs: [CredentialNeed] = []
        if let name = staff.codeCredential {
            needs.append(CredentialNeed(name: name, neededBy: "staff.codeCredential", kind: .staffCode))
        }
        if reports.uploadURL != nil, let name = reports.uploadTokenCredential {
            needs.append(CredentialNeed(name: name, neededBy: "reports.uploadTokenCredential", kind: .uploadToken))
        }
        if warnings.baseURL != nil, !warnings.publicKey.contains("-----BEGIN") {
            needs.append(
                CredentialNeed(name: warnings.publicKey, neededBy: "warnings.publicKey", kind: .authorityPublicKey))
        }
        if warnings.cwaBaseURL != nil, !warnings.cwaPublicKey.contains("-----BEGIN") {
            needs.append(
                CredentialNeed(name: warnings.cwaPublicKey, neededBy: "warnings.cwaPublicKey", kind: .cwaPublicKey))
        }
        return needs
    }

    /// The shortest staff code accepted: 16 characters (a code anyone can guess opens staff mode).
    public static let minimumStaffCodeLength = 16

    /// Reads and checks every needed credential through `lookup`; throws all problems at once, each naming the
    /// credential and the key that needs it, never its content. Public keys given inline in the file are used as
    /// they are.
    public func secrets(lookup: (String) -> CredentialLookup) throws(ConfigurationError) -> ConfigurationSecrets {
        var secrets = ConfigurationSecrets()
        if warnings.baseURL != nil, warnings.publicKey.contains("-----BEGIN") {
            secrets.authorityPublicKeyPEM = warnings.publicKey
        }
        if warnings.cwaBaseURL != nil, warnings.cwaPublicKey.contains("-----BEGIN") {
            secrets.cwaPublicKeyPEM = warnings.cwaPublicKey
        }
        var problems: [ConfigurationProblem] = []
        for need in neededCredentials {
            let path = "credential \(need.name)"
            var bytes: [UInt8]
            switch lookup(need.name) {
            case .found(let found): bytes = found
            case .missing:
                problems.append(
                    ConfigurationProblem(
                        path: path,
                        message:
                            "missing (needed by \(need.neededBy)); systemd: LoadCredential=\(need.name):/etc/kiosk/credentials/\(need.name)"
                    ))
                continue
            case .noCredentialsDirectory:
                problems.append(
                    ConfigurationProblem(
                        path: path,
                        message:
                            "cannot be read (needed by \(need.neededBy)): $CREDENTIALS_DIRECTORY is not set; run under systemd with LoadCredential=, or name a directory"
                    ))
                continue
            case .unreadable(let reason):
                problems.append(
                    ConfigurationProblem(path: path, message: "cannot be read (needed by \(need.neededBy)): \(reason)"))
                continue
            }
            if need.kind == .staffCode || need.kind == .uploadToken {
                // Editors and `echo` add a final newline; it is not part of the secret.
                while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            }
            switch need.kind {
            case .staffCode:
                if bytes.count < Self.minimumStaffCodeLength || bytes.count > 512 {
                    problems.append(
                        ConfigurationProblem(
                            path: path,
                            message: "must be \(Self.minimumStaffCodeLength) to 512 characters, has \(bytes.count)"))
                } else if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                    problems.append(
                        ConfigurationProblem(path: path, message: "must be one line of text without control characters")
                    )
                } else {
                    secrets.staffCode = bytes
                }
            case .uploadToken:
                if bytes.isEmpty || bytes.count > 4096 || bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
                    problems.append(
                        ConfigurationProblem(
                            path: path, message: "must be 1 to 4096 visible ASCII characters without spaces"))
                } else {
                    secrets.uploadToken = bytes
                }
            case .authorityPublicKey, .cwaPublicKey:
                let text = String(decoding: bytes, as: UTF8.self)
                if let problem = PEMShape.problem(text) {
                    problems.append(ConfigurationProblem(path: path, message: problem))
                } else if need.kind == .authorityPublicKey {
                    secrets.authorityPublicKeyPEM = text
                } else {
                    secrets.cwaPublicKeyPEM = text
                }
            }
        }
        guard problems.isEmpty else {
            throw ConfigurationError(problems: problems)
        }
        return secrets
    }
}
