import KioskCore
import Testing

/// DESFire's CRC32 is CRC-32/JAMCRC: zlib's CRC-32 without the final inversion, written least significant byte first.
@Suite struct DESFireCRC32Tests {
    private func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " })! }

    /// The CRC RevEng catalogue's check value of CRC-32/JAMCRC ("123456789"), and zlib's CRC-32 (CBF43926) inverted.
    @Test func catalogueCheckValue() {
        #expect(DESFireCRC32.checksum(Array("123456789".utf8)) == 0x340B_C6D9)
        #expect(DESFireCRC32.checksum(Array("123456789".utf8)) == ~CRC32.checksum(Array("123456789".utf8)))
    }

    /// Proxmark3's DESFire self-test (RfidResearchGroup/proxmark3, client/src/mifare/desfiretest.c, `TestCRC32`):
    /// the data 04 44 0F 32 76 31 80 with status 00 carries the CRC 99 CE 1A D4.
    @Test func proxmark3ResponseCRC() {
        #expect(DESFireCRC32.bytes(bytes("04440F32763180") + [0x00]) == bytes("99CE1AD4"))
    }

    /// The CRCs of Elmü's DESFire EV1 ChangeKey examples (AES): over C4 ‖ key number ‖ key ‖ version, and over
    /// the new key alone (see `DESFireSecureChannelTests`).
    @Test func changeKeyCRCs() {
        let newKey = bytes("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        #expect(DESFireCRC32.checksum([0xC4, 0x00] + newKey + [0x10]) == 0x6BE6_C6D2)
        #expect(DESFireCRC32.checksum([0xC4, 0x01] + newKey + [0x10]) == 0x84B4_7033)
        #expect(DESFireCRC32.checksum(newKey) == 0x1979_E3BF)
        #expect(DESFireCRC32.bytes([0xC4, 0x00] + newKey + [0x10]) == [0xD2, 0xC6, 0xE6, 0x6B])
    }
}
