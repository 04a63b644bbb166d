/// MIFARE DESFire's CRC32: the IEEE 802.3 polynomial, reflected (EDB88320), starting from FFFFFFFF and **not**
/// inverted at the end — the catalogue's CRC-32/JAMCRC (check value 340BC6D9 for "123456789"), that is zlib's CRC-32
/// with every bit flipped. The card sends and expects it least significant byte first.
///
/// In EV1 secure messaging it covers the command byte, its header and its data on enciphered commands, the data and
/// the status byte on enciphered responses, and in ChangeKey also the new key on its own.
public enum DESFireCRC32 {
    /// The CRC as a number.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        CRC32.checksum(bytes) ^ 0xFFFF_FFFF
    }

    /// The CRC as the card writes it: four bytes, least significant first.
    public static func bytes(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let crc = checksum(bytes)
        return [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    }
}
