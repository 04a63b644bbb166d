/// The link to one MIFARE DESFire card in the field: sends one ISO/IEC 7816-4 command APDU and returns the card's
/// response APDU (its data followed by SW1 SW2). `DESFireClient` wraps every native command in such an APDU.
///
/// The transport does not interpret the APDU; it carries it over ISO/IEC 14443-4 (the reader does the blocks). When
/// the card has left the field, or the reader cannot reach it, it throws `DESFireTransportError`. The kiosk's
/// implementation over libnfc is `NFCDESFireTransport` in `KioskNFC`.
public protocol DESFireTransport: AnyObject {
    /// Sends `apdu` and returns the response, SW1 SW2 included.
    func transmit(_ apdu: [UInt8]) throws(DESFireTransportError) -> [UInt8]
}

/// Why an APDU did not reach the card or its answer did not come back. Carries no data.
public struct DESFireTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The card left the field or stopped answering (taken away mid-command).
        case cardGone
        /// The exchange was aborted by the kiosk (shutdown).
        case aborted
        /// The reader itself failed (its line, its chip).
        case readerFailed
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case .cardGone: "DESFire: the card left the reader or did not answer"
        case .aborted: "DESFire: the exchange was aborted"
        case .readerFailed: "DESFire: the reader failed"
        }
    }
}
