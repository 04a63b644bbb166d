internal import Foundation
public import KioskCore
internal import Synchronization

/// The NFC side of a simulated kiosk: the PN532 emulator on a pseudo-terminal, which the daemon opens through the
/// real libnfc like any UART reader, and a numbered set of emulated NTAG215 cards that `kiosk simulate tap --card N`
/// places on it.
///
/// Card memories are kept in `cards.json` in the simulation directory, so a simulated kiosk restarted after a crash
/// still knows the cards it enrolled.
public final class SimulatedCardReader: Sendable {
    /// The libnfc connection string for the emulator's serial line.
    public let connection: String
    public let emulator: PN532Emulator
    private let terminal: PN532PseudoTerminal
    private let file: String
    private let state: Mutex<State>

    private struct State {
        var cards: [Int: EmulatedCard] = [:]
        var onReader: Int?
    }

    private struct SavedCard: Codable {
        var model: String
        var memory: String  // hex
    }

    /// Starts the emulator; `directory` holds the card file.
    public init(directory: String) throws {
        file = (directory as NSString).appendingPathComponent("cards.json")
        var cards = [Int: EmulatedCard]()
        if let data = FileManager.default.contents(atPath: file),
            let saved = try? JSONDecoder().decode([String: SavedCard].self, from: data)
        {
            for (key, card) in saved {
                guard let number = Int(key), let model = NTAGModel(rawValue: card.model),
                    let bytes = Hex.decode(card.memory), bytes.count == model.pageCount * 4
                else { continue }
                var tag = EmulatedTag(model: model, uid: Self.uid(for: number))
                for page in 0..<model.pageCount { tag.setPage(page, to: Array(bytes[page * 4..<page * 4 + 4])) }
                cards[number] = .tag(tag)
            }
        }
        state = Mutex(State(cards: cards))
        emulator = PN532Emulator()
        terminal = try PN532PseudoTerminal(emulator: emulator)
        connection = "pn532_uart:\(terminal.slavePath)"
        terminal.start()
    }

    /// Puts card `number` on the reader (a factory-fresh NTAG215 the first time), taking any other card away first.
    public func place(card number: Int) {
        if hasCard { remove() }
        let card = state.withLock { state -> EmulatedCard in
            let card = state.cards[number] ?? .blank(.ntag215, uid: Self.uid(for: number))
            state.cards[number] = card
            state.onReader = number
            return card
        }
        emulator.place(card)
    }

    /// Puts diary card `number` on the reader: a MIFARE DESFire EV1 4K (`EmulatedDESFire`) whose memory is the file
    /// `diary-card-N.json` in `directory`, by default the simulation directory (`DESFireCardMemory`: another
    /// simulated kiosk pointed at the same file sees the same card), factory-fresh the first time (`kiosk simulate
    /// tap --card N --diary [--cards-dir DIR]`).
    public func placeDiaryCard(number: Int, in directory: String? = nil, cipher: any AES128Cipher & TripleDESCipher)
        throws(DESFireCardMemory.Failure)
    {
        if hasCard { remove() }
        let folder = directory ?? (file as NSString).deletingLastPathComponent
        let path = (folder as NSString).appendingPathComponent("diary-card-\(number).json")
        var uid = Self.uid(for: number)
        uid[1] = 0x44  // "D": not the UID of the NTAG card with the same number
        let card = try EmulatedDESFire(
            memory: DESFireCardMemory(path: path), initial: DESFireCardImage(uid: uid), cipher: cipher)
        emulator.place(.desfire(card))
    }

    public func placeDiaryCard(number: Int, directory: String?, cipher: any AES128Cipher & TripleDESCipher) -> String? {
        do throws(DESFireCardMemory.Failure) {
            try placeDiaryCard(number: number, in: directory, cipher: cipher)
            return nil
        } catch {
            return "diary card \(number) could not be placed: \(error)"
        }
    }

    /// Puts a card that is not a kiosk card on the reader (a bank card), to see it refused.
    public func placeForeignCard() {
        if hasCard { remove() }
        emulator.place(.bankCard)
    }

    /// Takes the card away, keeping what was written to it (the card file is written when a numbered card left).
    public func remove() {
        let removed = emulator.removeCard()
        let numbered = state.withLock { state -> Bool in
            defer { state.onReader = nil }
            guard let number = state.onReader, let removed else { return false }
            state.cards[number] = removed
            return true
        }
        if numbered { save() }
    }

    /// Whether any card (numbered or foreign) lies on the reader.
    public var hasCard: Bool { emulator.card != nil }

    /// The number of the card on the reader, if it is one of the numbered cards.
    public var cardOnReader: Int? { state.withLock { $0.onReader } }

    /// Whether card `number` has been used with this simulated kiosk.
    public func knows(card number: Int) -> Bool { state.withLock { $0.cards[number] != nil } }

    /// Writes the card memories to disk, including the card now on the reader as it is now.
    public func save() {
        let current = emulator.card
        let cards = state.withLock { state -> [Int: EmulatedCard] in
            if let number = state.onReader, let current { state.cards[number] = current }
            return state.cards
        }
        var saved = [String: SavedCard]()
        for (number, card) in cards {
            guard case .tag(let tag) = card else { continue }
            saved[String(number)] = SavedCard(model: tag.model.rawValue, memory: Hex.encode(tag.memory))
        }
        guard let data = try? JSONEncoder().encode(saved) else { return }
        try? data.write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    /// Stops the emulator's serial line.
    public func stop() {
        save()
        terminal.stop()
    }

    /// A stable 7-byte UID per card number (NXP manufacturer byte 04).
    static func uid(for number: Int) -> [UInt8] {
        let value = UInt32(truncatingIfNeeded: number)
        return [
            0x04, 0x4B, 0x49, UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
            UInt8(value & 0xFF),
        ]
    }
}
