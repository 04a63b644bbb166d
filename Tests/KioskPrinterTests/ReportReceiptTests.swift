import Foundation
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
        let bytes = try ReportReceipt.escpos(batch: batch, madeAt: preview.createdAt, paper: paper)
        let rendering = try ESCPOSInterpreter.render(bytes, paper: paper)
        let decoded = ZBarDecoder.decodeQRCodes(
            width: rendering.width, height: rendering.height, grey: rendering.pixels)
        let parts = try decoded.map { try ReportBatch(text: String(decoding: $0, as: UTF8.self)) }
        #expect(parts.count == (batch.records.count + ReportReceipt.recordsPerCode - 1) / ReportReceipt.recordsPerCode)
        #expect(Set(parts.flatMap(\.records)) == Set(batch.records))
        #expect(parts.flatMap(\.records).count == batch.records.count)
        // Nothing names a venue.
        #expect(!rendering.lines.contains { $0.text.contains("Bakery") })
    }

    /// Read back from the receipt's own ESC/POS bytes: the paper carries the date it was made and the codes, no time
    /// of day, no risk level, and nothing that changes with how many of the records are real.
    @Test func theReceiptGivesTheDateAndTheCodesAndNothingOfTheReports() throws {
        var texts = [[String]]()
        for stays in [1, 3, 5] {
            let preview = try preview(stays: stays)
            let batch = try ReportSealer.batch(for: preview, crypto: crypto)
            #expect(batch.records.count == 16, "the same two codes for every count up to 7")
            // Made 2021-03-06 03:06 UTC: the date at the venue (Europe/Rome), as English writes it, never "UTC".
            let bytes = try ReportReceipt.escpos(
                batch: batch, madeAt: preview.createdAt, paper: .mm58, zone: VenueZone(identifier: "Europe/Rome"))
            let lines = try ESCPOSInterpreter.render(bytes, paper: .mm58).lines.map(\.text)
            let text = lines.joined(separator: " ").replacingOccurrences(of: "\u{00A0}", with: " ")
            #expect(text.contains("Made on 6 March 2021 with your consent."), "\(text)")
            #expect(!text.contains("UTC"))
            #expect(text.range(of: #"\d{1,2}:\d{2}"#, options: .regularExpression) == nil, "a time of day: \(text)")
            #expect(!text.lowercased().contains("risk") && !text.contains("/8") && !text.lowercased().contains("decoy"))
            #expect(!text.contains("\(preview.reportCount) report"))
            // Digits only in the date and the codes' numbers, which are the same for every count in a bucket.
            let digits = text.replacingOccurrences(of: "6 March 2021", with: "")
                .replacingOccurrences(of: "Code 1 of 2", with: "").replacingOccurrences(of: "Code 2 of 2", with: "")
                .filter(\.isNumber)
            #expect(digits.isEmpty, "numbers on the receipt: \(text)")
            texts.append(lines)
        }
        #expect(texts.allSatisfy { $0 == texts[0] }, "the text differs with the number of real reports")
    }

    @Test func everyCodePrintsAtThreeDotsPerModuleOrMoreOn58mm() throws {
        let preview = try preview(stays: 12)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        for part in ReportSealer.parts(of: batch, recordsPerPart: ReportReceipt.recordsPerCode) {
            let matrix = try QREncoder.compactMatrix(for: part.text)
            #expect((matrix.dotsPerModule(fitting: PaperWidth.mm58.dots) ?? 0) >= 3)
        }
    }

    /// A stay at a SwissCovid venue on paper: after the batch's codes, `CNUP1:` codes of at most five entries each,
    /// numbered on with them, every one read back by libzbar into the payload's entries, each printing sharply on
    /// 58 mm paper; the receipt says what those codes are and still names no venue and no time of day.
    @Test func aSwissCovidStayIsPrintedAsCNUPCodesAfterTheBatch() throws {
        let now: Int64 = 1_615_000_000
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let stay = ReportableStay(
            id: "sc", venueName: "Caffè Aurora", locationId: [UInt8](repeating: 7, count: 32), start: now - 30_000,
            end: now - 30_000 + 5400, crowdNotifier: keys)
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [stay], now: now, symptoms: .symptomsWithoutDate, output: .print)
        #expect(preview.carriesCrowdNotifierUpload)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let upload = try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto)
        let bytes = try ReportReceipt.escpos(
            batch: batch, crowdNotifierUpload: upload, madeAt: preview.createdAt, paper: .mm58)
        let rendering = try ESCPOSInterpreter.render(bytes, paper: .mm58)
        let decoded = ZBarDecoder.decodeQRCodes(
            width: rendering.width, height: rendering.height, grey: rendering.pixels
        ).map { String(decoding: $0, as: UTF8.self) }
        let batchCodes = decoded.filter { $0.hasPrefix(ReportBatch.textPrefix) }
        let uploadCodes = decoded.filter { $0.hasPrefix(CrowdNotifierUploadPayload.textPrefix) }
        #expect(batchCodes.count == 2 && uploadCodes.count == 4 && decoded.count == 6)
        let entries = try uploadCodes.flatMap { text in
            try #require(CrowdNotifierUploadPayload.entries(text: text))
        }
        #expect(Set(entries.map(\.timeKey)) == Set(try CrowdNotifierUploadPayload.entries(in: upload).map(\.timeKey)))
        for text in uploadCodes {
            #expect((try QREncoder.compactMatrix(for: text).dotsPerModule(fitting: PaperWidth.mm58.dots) ?? 0) >= 3)
        }
        let text = rendering.lines.map(\.text).joined(separator: " ")
        #expect(text.contains("Code 6 of 6"))
        #expect(text.contains("The last 4 codes are for warnings in SwissCovid and NotifyMe"), "\(text)")
        #expect(!text.contains("Caffè") && !text.contains("Aurora"))
        #expect(text.range(of: #"\d{1,2}:\d{2}"#, options: .regularExpression) == nil, "a time of day: \(text)")
    }
}
