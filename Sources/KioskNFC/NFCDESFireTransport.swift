public import KioskCore

/// The core's `DESFireTransport` over libnfc: an ISO/IEC 7816-4 APDU to a selected ISO/IEC 14443-4 type A card
/// (`NFCTarget.isISO14443Part4`) and its answer.
///
/// `NFCDevice` selects cards with libnfc's `NP_AUTO_ISO14443_4` on (the reader sends RATS and keeps the ATS) and
/// exchanges with easy framing (`NP_EASY_FRAMING`, libnfc's default in initiator mode), so that
/// `nfc_initiator_transceive_bytes` hands the APDU to the PN532's InDataExchange, which builds the ISO/IEC
/// 14443-4 blocks, their block numbers, waiting-time extensions and chaining, and returns the card's answer
/// without them. Each APDU waits at most `timeout` milliseconds; FormatPICC, which erases the whole card,
/// `formatTimeout`.
///
/// A card that left the field, or stopped answering (libnfc's `NFC_ERFTRANS`, `NFC_ETGRELEASED`, a timeout:
/// `NFCError.isCardGone`), becomes `DESFireTransportError(.cardGone)`; an aborted exchange `.aborted`; any other
/// failure `.readerFailed`, its `NFCError` kept in `lastError` for the reader's log.
public final class NFCDESFireTransport<Link: TagLink>: DESFireTransport {
    public let link: Link
    /// The longest wait for an answer, in milliseconds.
    public var timeout: Int32
    /// The longest wait for FormatPICC's answer, in milliseconds.
    public var formatTimeout: Int32
    /// The reader's error behind the last transport error.
    public private(set) var lastError: NFCError?

    public init(link: Link, timeout: Int32 = 1000, formatTimeout: Int32 = 10_000) {
        self.link = link
        self.timeout = timeout
        self.formatTimeout = formatTimeout
    }

    public func transmit(_ apdu: [UInt8]) throws(DESFireTransportError) -> [UInt8] {
        let formatPICC: UInt8 = 0xFC
        let wait = apdu.count > 1 && apdu[1] == formatPICC ? formatTimeout : timeout
        do {
            let answer = try link.transceive(apdu, timeout: wait)
            lastError = nil
            return answer
        } catch {
            lastError = error
            throw Self.transportError(error)
        }
    }

    /// The transport error for a reader's error.
    public static func transportError(_ error: NFCError) -> DESFireTransportError {
        if error.isCardGone { return DESFireTransportError(.cardGone) }
        if error.code == .aborted || error.code == .stopped { return DESFireTransportError(.aborted) }
        return DESFireTransportError(.readerFailed)
    }
}
