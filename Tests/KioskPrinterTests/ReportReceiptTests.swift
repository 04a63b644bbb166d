import KioskCore
import KioskOpenSSL
import KioskPrinter
import KioskSimulation
import Testing

/// The report receipt, rendered from its ESC/POS bytes and read back with libzbar into the exact batch.
@Suite struct ReportReceiptTests {
    let crypto = OpenSSLCrypto()

    func preview(stays count: Int) throws -> Preview {
        let now: Int64 = 1_615_000_000
        var stays = [ReportableStay]()
        for index in 0..<count {
            let start: Int64 = now - Int64(index + 1) * 20_000
            let locationId = [UInt8](repeating: UInt8(index + 1), count: 32)
            stays.append(
                ReportableStay(
                    id: String(index), venueName: "Bakery No \(index)", locationId: locationId, start: start,
                    end: start + 3600))
        }
        return try ConsentWalkthrough.consentedPreview(
            stays: stays, now: now, symptoms: .symptomsWithoutDate, output: .print)
    }

    @Test(arguments: [(1, PaperWidth.mm58), (12, PaperWidth.mm58), (12, PaperWidth.mm80)])
    func printedCodesDecodeBackIntoTheExactBatch(stays: Int, paper: PaperWidth) throws {
        let preview = try preview(stays: stays)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let bytes = try ReportReceipt.escpos(batch: batch, preview: preview, paper: paper)
        let rendering = try ESCPOSInterpreter.render(bytes, paper: paper)
        let decoded = ZBarDecoder.decodeQRCodes(
            width: rendering.width, height: rendering.height, grey: rendering.pixels)
        let parts = try decoded.map { try ReportBatch(text: String(decoding: $0, as: UTF8.self)) }
        #expect(parts.count == (batch.records.count + ReportReceipt.recordsPerCode - 1) / ReportReceipt.recordsPerCode)
        #expect(Set(parts.flatMap(\.records)) == Set(batch.records))
        #expect(parts.flatMap(\.records).count == batch.records.count)
        // Nothing names a venue.
        #expect(!rendering.lines.contains { $0.text.contains("Bakery") })
        #expect(rendering.lines.contains { $0.text.contains("risk") })
    }

    @Test func everyCodePrintsAtThreeDotsPerModuleOrMoreOn58mm() throws {
        let preview = try preview(stays: 12)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        for part in ReportSealer.parts(of: batch, recordsPerPart: ReportReceipt.recordsPerCode) {
            let matrix = try QREncoder.compactMatrix(for: part.text)
            #expect((matrix.dotsPerModule(fitting: PaperWidth.mm58.dots) ?? 0) >= 3)
        }
    }
}
