public import KioskCore

/// A MIFARE DESFire card in the field, recognised, with the client to speak to it: what the reader hands on for a
/// diary card (`docs/diary-card.md`). Valid while the card stays in the field; its client's session ends when the
/// card leaves or errs (`DESFireClient`).
///
/// The card's `target` is as anticollision saw it: with DESFire's random-ID option its UID is random at every
/// selection, so neither it nor `version.uid` (zeros until authenticated) identify the card; `getCardUID()` in a
/// session does.
public struct DESFireCard {
    public let target: NFCTarget
    /// GetVersion's answer: vendor 04 (NXP), type 01 (MIFARE DESFire).
    public let version: DESFireVersion
    /// The client over this card, no application selected and no session yet.
    public let client: DESFireClient
    /// The reader's count of this placement (`NFCReader.withDESFireCard`): the same card taken off and put back is
    /// another placement. 0 outside a reader.
    public internal(set) var placement: UInt64 = 0

    /// Recognises a MIFARE DESFire among ISO/IEC 14443-4 type A cards: SAK bit 0x20 with an ATS, then a wrapped
    /// GetVersion answered with vendor 04 and type 01. nil for any other card — an NTAG21x (SAK 00) is never sent
    /// anything —, or one that answers GetVersion with an ISO/IEC 7816-4 error (a bank card). Throws the reader's
    /// error when the card left during GetVersion or the reader failed.
    public static func identify(
        _ target: NFCTarget, over link: some TagLink, crypto: any DESFireCrypto
    ) throws(NFCError) -> DESFireCard? {
        guard target.isISO14443Part4 else { return nil }
        let transport = NFCDESFireTransport(link: link)
        let client = DESFireClient(transport: transport, crypto: crypto)
        do {
            let version = try client.getVersion()
            guard version.isDESFire else { return nil }
            return DESFireCard(target: target, version: version, client: client)
        } catch .transport {
            throw transport.lastError ?? NFCError(code: .radioTransmission)
        } catch {
            return nil
        }
    }
}

/// What a reader does with a MIFARE DESFire card placed on it. Without one (`NFCReader`'s default), a DESFire
/// card is read as before: not a kiosk card, nothing sent to it.
///
/// `serve` runs on the reader's thread while the card lies on the reader, with the card recognised and its
/// client ready; what it returns is reported as the card's read (`NFCCardEvent.card`), nil reports nothing. The
/// reader then waits for the card to leave, as for any card, and runs what `NFCReader.withDESFireCard` asks of it
/// meanwhile. `left` runs on the reader's thread when the card served has left (or the reader stopped), so that
/// whatever the handler kept of it (a session's key) is wiped.
public struct DESFireCardHandler: Sendable {
    public let crypto: any DESFireCrypto
    public let serve: @Sendable (DESFireCard) -> CardReadResult?
    public let left: @Sendable () -> Void

    public init(
        crypto: any DESFireCrypto, serve: @escaping @Sendable (DESFireCard) -> CardReadResult?,
        left: @escaping @Sendable () -> Void = {}
    ) {
        self.crypto = crypto
        self.serve = serve
        self.left = left
    }
}
