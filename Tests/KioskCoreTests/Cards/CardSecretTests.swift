import Foundation
import KioskCore
import KioskOpenSSL
import Testing

@Suite struct CardSecretTests {
    let crypto = OpenSSLCrypto()

    @Test func generatedSecretsHave128RandomBitsAndDiffer() throws {
        let a = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let b = try CardSecret.generate(kind: .visitor, crypto: crypto)
        #expect(a.entropy.count == 16)
        #expect(a.entropy != b.entropy)
        #expect(a.layoutBytes.count == 20)
        #expect(a.layoutBytes[0] == 1 && a.layoutBytes[1] == CardKind.visitor.rawValue)
    }

    @Test(arguments: CardKind.allCases) func printedTextRoundTrips(kind: CardKind) throws {
        for _ in 0..<50 {
            let secret = try CardSecret.generate(kind: kind, crypto: crypto)
            let text = secret.printedText
            #expect(text.hasPrefix("KC1-"))
            #expect(text.count == 4 + 32 + 7)
            #expect(try CardSecret(printedText: text) == secret)
            #expect(try CardSecret(printedText: text.lowercased()) == secret)
            #expect(try CardSecret(printedText: "  " + text.replacingOccurrences(of: "-", with: " ") + "\n") == secret)
            #expect(try CardSecret(layoutBytes: secret.layoutBytes) == secret)
        }
    }

    /// A fixed secret gives a fixed text: the printed format is stable across versions of this code.
    @Test func knownTextForKnownSecret() throws {
        let secret = try CardSecret(kind: .staff, entropy: Array(0..<16))
        #expect(secret.printedText == "KC1-0410-0082-0C20-A1G7-104G-M2RC-1M70-ZHB3")
        #expect(try CardSecret(printedText: "kc1 o410 oo82 oc2o a1g7 io4g m2rc im7o zhb3").kind == .staff)
    }

    /// Every single-symbol substitution is rejected (CRC-16 covers every 5-bit error).
    @Test func everyMistypedSymbolIsRejected() throws {
        let secret = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let chars = Array(secret.printedText)
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        for index in chars.indices where index >= 4 && chars[index] != "-" {
            for replacement in alphabet where replacement != chars[index] {
                var typo = chars
                typo[index] = replacement
                #expect(throws: CardCodeError.self) { try CardSecret(printedText: String(typo)) }
            }
        }
    }

    @Test func swappedNeighboursAreRejected() throws {
        let secret = try CardSecret.generate(kind: .visitor, crypto: crypto)
        let symbols = Array(secret.printedText.dropFirst(4).filter { $0 != "-" })
        for index in 0..<(symbols.count - 1) where symbols[index] != symbols[index + 1] {
            var swapped = symbols
            swapped.swapAt(index, index + 1)
            #expect(throws: CardCodeError.checksumMismatch) { try CardSecret(printedText: "KC1-" + String(swapped)) }
        }
    }

    @Test func tornAndForeignCodesAreRejected() throws {
        let text = try CardSecret.generate(kind: .visitor, crypto: crypto).printedText
        #expect(throws: CardCodeError.wrongLength) { try CardSecret(printedText: String(text.dropLast(1))) }
        #expect(throws: CardCodeError.wrongLength) { try CardSecret(printedText: String(text.dropLast(5))) }
        #expect(throws: CardCodeError.wrongLength) { try CardSecret(printedText: text + "7") }
        #expect(throws: CardCodeError.notACardCode) { try CardSecret(printedText: "https://e.coronawarn.app?v=1#CAES") }
        #expect(throws: CardCodeError.unsupportedVersion) { try CardSecret(printedText: "KC2-" + text.dropFirst(4)) }
        #expect(throws: CardCodeError.invalidCharacter) { try CardSecret(printedText: "KC1-UUUU" + text.dropFirst(8)) }
    }

    @Test func layoutBytesWithBadVersionKindOrChecksumAreRejected() throws {
        let bytes = try CardSecret.generate(kind: .visitor, crypto: crypto).layoutBytes
        var badVersion = Array(bytes.prefix(18))
        badVersion[0] = 2
        let crc = crc16(badVersion)
        badVersion += [UInt8(crc >> 8), UInt8(crc & 0xff)]
        #expect(throws: CardCodeError.unsupportedVersion) { try CardSecret(layoutBytes: badVersion) }
        var flipped = bytes
        flipped[7] ^= 0x01
        #expect(throws: CardCodeError.checksumMismatch) { try CardSecret(layoutBytes: flipped) }
        #expect(throws: CardCodeError.wrongLength) { try CardSecret(layoutBytes: Array(bytes.prefix(18))) }
    }

    /// CRC-16/CCITT-FALSE, written out independently of the implementation (check value of "123456789" is 0x29B1).
    private func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xffff
        for byte in bytes {
            for bit in 0..<8 {
                let inBit = (byte >> (7 - UInt8(bit))) & 1 == 1
                let top = crc & 0x8000 != 0
                crc <<= 1
                if inBit != top { crc ^= 0x1021 }
            }
        }
        return crc
    }

    @Test func crcCheckValue() throws {
        #expect(crc16(Array("123456789".utf8)) == 0x29b1)
        let bytes = try CardSecret.generate(kind: .visitor, crypto: crypto).layoutBytes
        let crc = crc16(Array(bytes.prefix(18)))
        #expect(Array(bytes.suffix(2)) == [UInt8(crc >> 8), UInt8(crc & 0xff)])
    }

    @Test func errorTextsCarryNoCode() throws {
        let text = try CardSecret.generate(kind: .visitor, crypto: crypto).printedText
        do {
            _ = try CardSecret(printedText: String(text.dropLast(1)))
            Issue.record("a torn code was accepted")
        } catch {
            #expect(!error.description.contains(String(text.dropFirst(4).prefix(4))))
        }
    }
}
