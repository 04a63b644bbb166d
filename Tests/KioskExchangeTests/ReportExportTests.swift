import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// From consent to a file on a stick, and back: another kiosk that only knows the venue's `locationId` reads the
/// exact intervals and risk levels.
@Suite struct ReportExportTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_615_000_000  // 2021-03-06 03:06:40 UTC
    let bakery = [UInt8](repeating: 0xB0, count: 32)
    let library = [UInt8](repeating: 0x1B, count: 32)

    func consentedPreview(output: ReportOutput) throws -> Preview {
        try ConsentWalkthrough.consentedPreview(
            stays: [
                ReportableStay(
                    id: "1", venueName: "Bakery", locationId: bakery, start: now - 86_400, end: now - 86_400 + 3600),
                ReportableStay(
                    id: "2", venueName: "Library", locationId: library, start: (now / 86_400 - 2) * 86_400 - 3600,
                    end: (now / 86_400 - 2) * 86_400 + 3600),
            ], now: now, symptoms: .symptomOnset(day: now / 86_400 - 2), output: output)
    }

    @Test func exportedBatchOpensWithOnlyTheLocationId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let preview = try consentedPreview(output: .export)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let written = try ReportExporter(directory: directory.path).export(batch: batch, madeAt: preview.createdAt)

        // Another kiosk reads the file from the stick.
        let fileBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + written.batchFile)))
        let read = try ReportBatch(bytes: fileBytes)
        let textForm = try String(contentsOfFile: directory.path + "/" + written.textFile, encoding: .utf8)
        #expect(try ReportBatch(text: textForm) == read)
        #expect(read.records.count % 8 == 0 && read.records.count > preview.reportCount)

        var opened: [[UInt8]: [PresenceReport]] = [:]
        for venue in [bakery, library] {
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            for record in read.records {
                for day in (now / 86_400 - 3)...(now / 86_400) {
                    if let report = try? CKPR.open(record, day: UInt32(day), keys: keys) {
                        opened[venue, default: []].append(report)
                    }
                }
            }
        }
        let expected = Dictionary(grouping: preview.sealingPlan, by: { $0.locationId }).mapValues { $0.map(\.report) }
        #expect(opened.mapValues(Set.init) == expected.mapValues(Set.init))
        #expect(opened.values.reduce(0) { $0 + $1.count } == preview.reportCount)
        // Library stay crosses midnight UTC: two reports; bakery: one.
        #expect(opened[library]?.count == 2)

        let readMe = try String(contentsOfFile: directory.path + "/" + written.readMeFile, encoding: .utf8)
        #expect(!readMe.contains("Bakery") && !readMe.contains("Library"))
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".") })
    }

    /// Everything on the stick, read back: names with no time finer than the day, texts with the date and nothing
    /// of the reports (no time of day, no risk level, no count of real reports: the same whatever that count).
    @Test func theStickGetsTheDateAndTheBatchAndNothingOfTheReports() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var readMes = Set<String>()
        for stays in 1...2 {
            let preview = try ConsentWalkthrough.consentedPreview(
                stays: (0..<stays).map { index in
                    ReportableStay(
                        id: "\(index)", venueName: "Bakery", locationId: bakery,
                        start: now - 86_400 + Int64(index) * 7200,
                        end: now - 86_400 + Int64(index) * 7200 + 3600)
                }, now: now, symptoms: .symptomsWithoutDate, output: .export)
            #expect(preview.reportCount == stays)
            let batch = try ReportSealer.batch(for: preview, crypto: crypto)
            let written = try ReportExporter(directory: directory.path).export(batch: batch, madeAt: preview.createdAt)
            let readMe = try String(contentsOfFile: directory.path + "/" + written.readMeFile, encoding: .utf8)
            readMes.insert(readMe)
            #expect(readMe.contains("Made on 2021-03-06"))
            #expect(readMe.range(of: #"\d{1,2}:\d{2}"#, options: .regularExpression) == nil)
            #expect(!readMe.lowercased().contains("risk") && !readMe.lowercased().contains("decoy"))
            #expect(readMe.replacingOccurrences(of: "2021-03-06", with: "").allSatisfy { !$0.isNumber })
            let text = try String(contentsOfFile: directory.path + "/" + written.textFile, encoding: .utf8)
            #expect(try ReportBatch(text: text.trimmingCharacters(in: .whitespacesAndNewlines)) == batch)
        }
        #expect(readMes.count == 1, "the read-me differs with the number of real reports")
        // Two exports on one day: numbered, never timed.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(
            names == [
                "checkin-reports-20210306-2-read-me.txt", "checkin-reports-20210306-2.ckpb",
                "checkin-reports-20210306-2.txt", "checkin-reports-20210306-read-me.txt",
                "checkin-reports-20210306.ckpb", "checkin-reports-20210306.txt",
            ])
    }

    @Test func missingStickIsAClearError() throws {
        let preview = try consentedPreview(output: .export)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        #expect(throws: ExportError.noMedium) {
            try ReportExporter(directory: "/nonexistent/usb").export(batch: batch, madeAt: preview.createdAt)
        }
        #expect(ExportError.noMedium.description.contains("USB stick"))
    }

    @Test(.enabled(if: TemporaryDirectory.canMount, "needs CAP_SYS_ADMIN to mount a small tmpfs as a full stick"))
    func fullStickLeavesNoHalfFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(directory.mountTmpfs(kilobytes: 8))
        defer { directory.unmount() }
        // Fill the stick almost completely.
        try Data(count: 6 * 1024).write(to: URL(fileURLWithPath: directory.path + "/filler"))
        let big = [UInt8](repeating: 0x42, count: 64 * 1024)
        #expect(throws: ExportError.deviceFull) { try AtomicFile.write(big, named: "batch.ckpb", in: directory.path) }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["filler"])
    }

    @Test(.enabled(if: TemporaryDirectory.canMount, "needs CAP_SYS_ADMIN to mount a read-only tmpfs as a locked stick"))
    func writeProtectedStickIsAClearError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(directory.mountTmpfs(kilobytes: 64, readOnly: true))
        defer { directory.unmount() }
        #expect(throws: ExportError.readOnly) {
            try AtomicFile.write([1, 2, 3], named: "batch.ckpb", in: directory.path)
        }
    }

    @Test func rewritingReplacesTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try AtomicFile.write([UInt8](repeating: 1, count: 1000), named: "f", in: directory.path)
        try AtomicFile.write([2, 2], named: "f", in: directory.path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/f"))) == [2, 2])
        #expect(throws: ExportError.invalidName) { try AtomicFile.write([1], named: "../escape", in: directory.path) }
    }

    @Test func aFileWrittenInPiecesIsInPlaceOnlyOnceCommitted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/f"
        try AtomicFile.write([1], named: "f", in: directory.path)
        do {
            let file = try AtomicFile.Writer(named: "f", in: directory.path)
            try file.append([2, 2])
            // Let go before `commit`: the target keeps what it held, nothing is left beside it.
        }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["f"])
        let file = try AtomicFile.Writer(named: "f", in: directory.path)
        try file.append([3, 3])
        try file.append([4])
        try file.commit()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == [3, 3, 4])
        #expect(throws: ExportError.ioError(EBADF)) { try file.append([5]) }
    }

    @Test func printedPartsAreCompleteBatches() throws {
        let preview = try consentedPreview(output: .print)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let parts = ReportSealer.parts(of: batch, recordsPerPart: 3)
        #expect(parts.flatMap(\.records) == batch.records)
        for part in parts { #expect(try ReportBatch(text: part.text) == part) }
    }
}
