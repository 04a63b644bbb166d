import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// Cléa codes: the clear header of `testLSPDecoding.csv` rows 1–5 (the rows whose LTId the spec derivation confirms).
@Suite struct CLEAVectorTests {
    let crypto = OpenSSLCrypto()

    struct Row: Sendable {
        let ltid: String
        let ltKeyHex: String
        let lsp: String
    }

    static let rows: [Row] = {
        let text = String(decoding: try! VectorFiles.data("clea/testLSPDecoding.csv"), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).dropFirst()
        return lines.map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return Row(ltid: fields[1], ltKeyHex: fields[9], lsp: fields[12])
        }
    }()

    @Test func csvHasTenRows() {
        #expect(Self.rows.count == 10)
    }

    @Test(arguments: 0..<5)
    func headerOfRow(_ index: Int) throws {
        let row = Self.rows[index]
        let venue = try VenueCodeParser.parse("https://tac.gouv.fr?v=0#" + row.lsp, crypto: crypto)
        #expect(venue.format == .clea)
        let header = try #require(venue.clea)
        #expect(header.version == 0)
        #expect(header.lspType == 0)
        #expect(header.locationTemporaryIdUUID == row.ltid)
        #expect(header.lspLength == PayloadEncoding.decodeBase64(Array(row.lsp.utf8))?.count)
        #expect(venue.locationId == nil && venue.locationIdHash == nil && venue.name == nil)
        // Spec §3.3: LTId = HMAC-SHA-256-128(LTKey, "1") — the header really is the location's temporary id.
        let mac = try crypto.hmacSHA256(key: Hex.decode(row.ltKeyHex)!, data: Array("1".utf8))
        #expect(Array(mac.prefix(16)) == header.locationTemporaryId)
    }

    @Test func shortOrFutureLSPsAreRejected() throws {
        #expect(throws: VenueCodeError.undecodablePayload(.clea)) {
            try VenueCodeParser.parse("https://tac.gouv.fr?v=1#Y2xlYQ", crypto: crypto)
        }
        var lsp = PayloadEncoding.decodeBase64(Array(Self.rows[0].lsp.utf8))!
        lsp[0] = 0x20  // version 1
        #expect(throws: VenueCodeError.unsupportedVersion(.clea)) {
            try VenueCodeParser.parse("https://tac.gouv.fr?v=0#" + PayloadEncoding.encodeBase64URL(lsp), crypto: crypto)
        }
        #expect(throws: VenueCodeError.unsupportedVersion(.clea)) {
            try VenueCodeParser.parse("https://tac.gouv.fr#" + Self.rows[0].lsp, crypto: crypto)
        }
    }
}
