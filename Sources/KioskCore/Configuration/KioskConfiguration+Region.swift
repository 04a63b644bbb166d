extension KioskConfiguration {
    /// `region`: the PKCS #11 token holding the region's keys for diary cards (docs/diary-card.md, docs/region.md),
    /// which the `kiosk region` commands set up and a daemon opens (`PKCS11RegionKeys.open` in `KioskPKCS11`). Off
    /// (nil) by default: a kiosk of NTAG cards alone needs no token.
    public struct Region: Sendable, Equatable {
        /// The region's name: its UTF-8 bytes, zero-padded to 20, are the system identifier in every card key's
        /// diversification input, so every kiosk of a region must spell it the same. 1 to 20 bytes, no control
        /// characters.
        public var name: String
        /// The PKCS #11 module's path: SoftHSM2 in simulation, tpm2-pkcs11 or OpenSC's module on a board.
        public var module = Region.softHSM2Module
        /// The token's label (`CKA_LABEL` of the token, at most 32 bytes).
        public var token = "kiosk-region"
        /// The credential holding the token user's PIN (one line).
        public var pinCredential = "region-pin"

        public init(name: String) {
            self.name = name
        }

        /// Debian's SoftHSM2 module.
        public static let softHSM2Module = "/usr/lib/softhsm/libsofthsm2.so"
        /// The longest name: the system identifier's 20 bytes.
        public static let maximumNameBytes = 20
        /// A PKCS #11 token label's 32 bytes.
        public static let maximumTokenLabelBytes = 32

        /// Why `name` cannot be a region's name, or nil.
        public static func problem(withName name: String) -> String? {
            if name.isEmpty { return "must not be empty" }
            if name.utf8.count > maximumNameBytes {
                return
                    "is \(name.utf8.count) bytes in UTF-8: at most \(maximumNameBytes) (it is the cards' system identifier)"
            }
            if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return "must not contain control characters"
            }
            return nil
        }

        /// Why `label` cannot be a token's label, or nil.
        public static func problem(withTokenLabel label: String) -> String? {
            if label.isEmpty { return "must not be empty" }
            if label.utf8.count > maximumTokenLabelBytes {
                return "is \(label.utf8.count) bytes: a PKCS #11 token's label has at most \(maximumTokenLabelBytes)"
            }
            return nil
        }
    }
}
