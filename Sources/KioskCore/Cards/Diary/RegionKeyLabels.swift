/// The labels (`CKA_LABEL`) of the region's keys in a kiosk's PKCS #11 token, as docs/diary-card.md's table of the
/// region's keys names them: every kiosk of a region finds the same key under the same label.
public enum RegionKeyLabels {
    /// The ratchet's oldest key K(d₀); its day d₀ is in the key's `CKA_ID` (`dayID`).
    public static let day = "region-day"
    /// The wrapping key the security officer installs from the custodians' components.
    public static let wrap = "region-wrap"
    /// What every card master key's label starts with.
    public static let cardPrefix = "region-card-g"

    /// The generations a card master key can have: DESFire's key version, 0 left out.
    public static let generations: ClosedRange<Int> = 1...255

    /// `region-card-g<N>`: the card master key of generation `generation`.
    public static func card(generation: UInt8) -> String { cardPrefix + String(generation) }

    /// The generation a label names, or nil when it is not a card master key's label (`region-card-g007` is not:
    /// one spelling per generation).
    public static func generation(ofLabel label: String) -> UInt8? {
        guard label.hasPrefix(cardPrefix) else { return nil }
        let digits = label.dropFirst(cardPrefix.count)
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            digits.first != "0" || digits.count == 1, let value = Int(digits), generations.contains(value)
        else { return nil }
        return UInt8(value)
    }

    /// The day key's `CKA_ID`: its day as 4 bytes big-endian, two's complement (days before 1970 never occur, but
    /// are not confused with later ones).
    public static func dayID(_ day: DiaryDay) -> [UInt8] {
        let value = UInt32(bitPattern: Int32(truncatingIfNeeded: day))
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The day a day key's `CKA_ID` holds, or nil when it is not 4 bytes.
    public static func day(fromID id: [UInt8]) -> DiaryDay? {
        guard id.count == 4 else { return nil }
        let value = id.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return DiaryDay(Int32(bitPattern: value))
    }
}
