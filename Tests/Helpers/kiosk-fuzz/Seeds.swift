import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskProto
import KioskZip
import SwiftProtobuf

/// Seed inputs for every target but `venue` (whose seeds are the codes of `Tests/Vectors`), made by the production
/// encoders from fixed values, so that each target starts from inputs the kiosk really reads. The configuration seed
/// is `board/config/kiosk.json`, read from the repository (run from its root).
func writeSeeds(to directory: String) {
    var seeds = [String: [[UInt8]]]()
    func add(_ target: String, _ input: [UInt8]) { seeds[target, default: []].append(input) }
    func bytes(_ count: Int, _ start: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(start) + $0 * 37) }
    }

    // NFC card memory: GET_VERSION answer, UID, pages 4–14 (a visitor card, a staff card, a blank and a torn card).
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    for (model, kind, length) in [(NTAGModel.ntag215, CardKind.visitor, 20), (.ultralightEV1MF0UL11, .staff, 32)] {
        guard let image = try? CardImage.encode(CardContent(kind: kind, secret: bytes(length, 9)), uid: uid) else {
            fatalError("card image")
        }
        add("card", model.version + uid + image)
        var torn = image
        torn[CardImage.byteCount - 1] = 0
        add("card", model.version + uid + torn)
    }
    add("card", NTAGModel.ntag213.version + uid + [UInt8](repeating: 0, count: CardImage.byteCount))

    // Printed card codes.
    for kind in CardKind.allCases {
        guard let secret = try? CardSecret(kind: kind, entropy: bytes(16, UInt8(kind.rawValue))) else {
            fatalError("secret")
        }
        add("card-code", Array(secret.printedText.utf8))
        add("card-code", Array(("  " + secret.printedText.lowercased().replacingOccurrences(of: "-", with: " ")).utf8))
    }

    // Reports: CKPR/1 plaintexts and records, CKPB/1 batches as bytes and text.
    let report = PresenceReport(startIntervalNumber: 2_937_600 + 60, period: 12, transmissionRiskLevel: 7)
    add("ckpr", report.plaintext + bytes(16, 3) + [5, 0x80])
    add("ckpr", PresenceReport(startIntervalNumber: 144, period: 144, transmissionRiskLevel: 1).plaintext)
    guard let record = try? CKPR.seal(report, keys: fuzzRecordKeys, iv: bytes(16, 3)) else { fatalError("record") }
    add("ckpr", record)
    var records = [record]
    for index in 1..<8 { records.append(bytes(CKPR.recordLength, UInt8(index))) }
    guard let batch = try? ReportBatch(records: records), let empty = try? ReportBatch(records: []) else {
        fatalError("batch")
    }
    add("batch", batch.bytes)
    add("batch", Array(batch.text.utf8))
    add("batch", Array(empty.text.utf8))

    // Uploads: a batch alone, its text, and a submission with the same reports in CWA's format.
    var payload = SAP_Internal_SubmissionPayload()
    payload.submissionType = .pcrTest
    payload.checkInProtectedReports = (0..<8).map { index in
        var message = SAP_Internal_Pt_CheckInProtectedReport()
        message.locationIDHash = Data(bytes(32, UInt8(index)))
        message.iv = Data(bytes(16, UInt8(index + 1)))
        message.encryptedCheckInRecord = Data(bytes(16, UInt8(index + 2)))
        message.mac = Data(bytes(32, UInt8(index + 3)))
        return message
    }
    guard let cwa = try? payload.serializedData() else { fatalError("submission payload") }
    add("upload", Array("ABCDE-12345\n\(ReportUploader.contentType)\n".utf8) + batch.bytes)
    add("upload", Array("abcde 12345\ntext/plain\n\(batch.text)".utf8))
    add(
        "upload",
        Array("ABCDE12345\n\(ReportUploader.submissionContentType)\n".utf8)
            + ReportUploader.submission(batch, cwa: [UInt8](cwa)))

    // CKPW/1 packages and the index beside them; CWA hour indexes.
    for count in [0, 1, 3] {
        guard let package = try? WarningPackage(createdAt: 1_762_000_000, records: Array(records.prefix(count))) else {
            fatalError("package")
        }
        add("ckpw", package.bytes)
    }
    // CKCN/1 files of both forms: none, one and three events under fixed keys.
    guard let venue = try? CrowdNotifierVenueKeys.v3(payload: bytes(120, 3), crypto: OpenSSLCrypto()) else {
        fatalError("keys")
    }
    for form in [CrowdNotifierEvent.Form.v3, .v2] {
        for count in [0, 1, 3] {
            let events = (0..<count).map { index in
                CrowdNotifierEvent(
                    form: form,
                    identity: (try? venue.identity(hour: 497_222 + Int64(index), crypto: OpenSSLCrypto()))
                        ?? bytes(32, 1),
                    nonce: bytes(24, UInt8(index)), sealed: bytes(40, 5), startMs: form == .v2 ? 1_790_000_000_000 : 0,
                    endMs: form == .v2 ? 1_790_003_600_000 : 0, day: form == .v3 ? 1_789_948_800 : 0)
            }
            guard
                let file = try? CrowdNotifierEventPackage(form: form, createdAt: 1_790_000_000, events: events).bytes()
            else { fatalError("crowdnotifier") }
            add("crowdnotifier", file)
        }
    }
    add(
        "warnings-index",
        Array(
            #"{"version":1,"packages":[{"sequence":1,"file":"warnings-000001.bin","signature":"warnings-000001.bin.sig","createdAt":1762000000,"count":8,"sha256":"00"}]}"#
                .utf8))
    add(
        "warnings-index",
        Array(
            #"{"version":1,"packages":[],"presenceTracingParameters":{"transmissionRiskValues":[0,0,0.6,0.8,1,1.2,1.4,1.6],"normalizedTimePerCheckInToRiskLevel":[{"min":0,"max":9,"maxExclusive":true,"riskLevel":1},{"min":9,"max":9999,"riskLevel":2}],"normalizedTimePerDayToRiskLevel":[{"min":0,"max":15,"maxExclusive":true,"riskLevel":1},{"min":15,"max":9999,"riskLevel":2}],"maxCheckInAgeInDays":10}}"#
                .utf8))
    add("warnings-index", Array("[489600,489601,489603]".utf8))
    add("warnings-index", Array(#"{"oldest":489600,"latest":489623}"#.utf8))

    // Zips and CWA hourly packages (signed with a fresh key: the fuzz target accepts any signature).
    let warning = CWATraceWarning(
        locationIdHash: bytes(32, 1), startIntervalNumber: 2_937_600, period: 6, transmissionRiskLevel: 5)
    let report0 = CWAProtectedReport(
        locationIdHash: bytes(32, 2), iv: bytes(16, 3), encryptedCheckInRecord: bytes(16, 4), mac: bytes(32, 5))
    let hourly = CWATraceWarningPackage(
        hour: 489_600, region: "DE", timeIntervalWarnings: [warning], checkInProtectedReports: [report0])
    guard let signer = try? ECDSAPrivateKey(), let zipped = try? CWAHourlyPackage.make(hourly, signer: signer),
        let stored = try? ZipArchive.archive(
            [("export.bin", hourly.export), ("export.sig", CWATraceWarningPackage.signatureList(signature: [0x30]))],
            compress: false)
    else { fatalError("CWA package") }
    add("cwa", zipped)
    add("cwa", stored)
    add("cwa", hourly.export)
    add("zip", zipped)
    add("zip", stored)

    // Control requests, as `kiosk simulate` sends them.
    for line in [
        #"{"command":"status"}"#, #"{"command":"tap","card":1}"#, #"{"command":"advance","seconds":5400}"#,
        #"{"command":"report","card":2,"answers":["yes","1","print"]}"#,
        #"{"command":"staff-command","text":"create","fields":{"description":"Bakery","address":"Main St 1","type":"3","length":"60"}}"#,
        #"{"command":"staff-command","text":"create","fields":{"description":"Concert","address":"Hall","type":"9","start":"1762000000","end":"1762010000"}}"#,
        #"{"command":"show-code","text":"KC1-0000","flag":true,"path":"/tmp/x","button":"confirm"}"#,
    ] {
        add("control", Array(line.utf8))
    }

    // Requests to the local HTTP server; the first byte is the chunk length less one.
    add("http", [15] + Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\n\r\n".utf8))
    add("http", [0] + Array("HEAD / HTTP/1.0\r\n\r\n".utf8))
    add(
        "http",
        [200]
            + Array(
                "POST /staff HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://127.0.0.1:8080\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\naction=bind"
                    .utf8))

    // The configuration: the board's example file, with and without variables over it.
    guard let example = FileManager.default.contents(atPath: "board/config/kiosk.json") else {
        fatalError("run from the repository root: board/config/kiosk.json is the configuration seed")
    }
    add("config", [UInt8](example))
    add(
        "config", [UInt8](example) + [0] + Array("KIOSK_NFC_CONNECTION=pn532_i2c:/dev/i2c-1\nKIOSK_LOGLEVEL=debug".utf8)
    )
    add("config", Array(#"{"stateDirectory": "/tmp/kiosk", "checkIns": {"dailyLimit": 3}}"#.utf8))

    // A region key export: two generations and a day key (the wrapped bytes are arbitrary: not unwrapped here).
    let regionKeys = RegionKeyExport(
        systemIdentifier: DiaryDiversification.systemIdentifier(regionName: "Ticino"),
        cards: [.init(generation: 1, wrapped: bytes(24, 11)), .init(generation: 2, wrapped: bytes(24, 12))],
        dayKey: .init(day: 20_770, wrapped: bytes(24, 13)))
    add("region-keys", Array(regionKeys.text.utf8))
    add("region-keys", Array(regionKeys.text.replacingOccurrences(of: "card 2", with: "card 1").utf8))

    for (target, inputs) in seeds {
        let folder = directory + "/" + target + "-corpus"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, input) in inputs.enumerated() {
            fuzzTargets.first { $0.name == target }?.check(input)
            FileManager.default.createFile(atPath: folder + "/seed-\(index + 1)", contents: Data(input))
        }
        print("kiosk-fuzz seed: \(inputs.count) inputs in \(folder)")
    }
}
