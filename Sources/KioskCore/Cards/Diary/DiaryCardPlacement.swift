/// What a MIFARE DESFire card placed on the reader of a kiosk of the region is (docs/diary-card.md, "At the
/// station"), found once per placement (`ReaderDiaryCards`): a diary card of the region, opened; or a card still to
/// be made one — new, or pulled away while it was being made (`DiaryCardMaker`).
public enum DiaryCardPlacement {
    /// A diary card of the region, opened with its keys.
    case diary(DiaryCardLink)
    /// A card staff can make a diary card: its card master key is still the factory's (NXP's DES key of zeros), and
    /// it has no diary application, or one whose identify key is not the region's yet (a making pulled away).
    case unmade

    /// Reads the card behind `client`; `uidIsRandom`: its anticollision UID was a random one. A diary card whose UID
    /// is not random was pulled away during its making's last step (`DiaryCardMaker.finish`), which is finished
    /// here first; should that fail, the card is served as it is. Throws `.notADiaryCard` for a DESFire card of
    /// something else (a transit card: its master key is not the factory's), `.keysDoNotMatch` for a card of another
    /// region or of a generation the token does not hold, `.cardGone` when it left.
    public static func read(
        client: DESFireClient, uidIsRandom: Bool, keys: any RegionKeys, crypto: any DESFireCrypto
    ) throws(DiaryCardError) -> DiaryCardPlacement {
        let link: DiaryCardLink
        do throws(DiaryCardError) {
            link = try DiaryCardLink.open(client: client, keys: keys, crypto: crypto)
        } catch .notADiaryCard {
            if opensWithTheFactoryKey(client) { return .unmade }
            throw .notADiaryCard
        } catch .keysDoNotMatch {
            if opensWithTheFactoryKey(client) { return .unmade }
            throw .keysDoNotMatch
        }
        guard !uidIsRandom else { return .diary(link) }
        let (uid, generation) = (link.uid, link.generation)
        link.close()
        do throws(DiaryCardError) {
            try DiaryCardMaker.finish(client: client, uid: uid, generation: generation, keys: keys, crypto: crypto)
        } catch .cardGone {
            throw .cardGone
        } catch {
            // Not finished (a card master key this kiosk cannot open): the diary itself still serves.
        }
        return .diary(try DiaryCardLink.open(client: client, keys: keys, crypto: crypto))
    }

    /// Whether the card master key is still NXP's factory key (AuthenticateISO with it succeeds); the session it
    /// opens is closed again.
    static func opensWithTheFactoryKey(_ client: DESFireClient) -> Bool {
        defer { client.close() }
        do {
            try client.selectApplication(.picc)
            try client.authenticate(keyNumber: 0, key: .factoryDefault)
            return true
        } catch {
            return false
        }
    }
}
