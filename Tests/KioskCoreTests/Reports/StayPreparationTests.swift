import KioskCore
import Testing

/// CWA's preparation of stays before submission, with its vectors (`Tests/Vectors/cwa/`).
@Suite struct StayPreparationTests {
    struct DerivationFile: Decodable {
        struct Case: Decodable {
            let description, startDate, endDate: String
            let expStartDate, expEndDate: String?
        }
        let testCases: [Case]
    }
    struct SplitFile: Decodable {
        struct Piece: Decodable { let start, end: String }
        struct Case: Decodable {
            let description, startDate, endDate: String
            let expSplits: [Piece]
        }
        let cases: [Case]
    }
    struct RiskLevelFile: Decodable {
        struct Case: Decodable {
            let checkInStart, now: String
            let transmissionRiskVector: [UInt8]
            let expTransmissionRiskLevel: UInt8
        }
        let transmissionRiskVectors: [String: [UInt8]]
        let hostWarningTransmissionRiskLevel: UInt8
        let cases: [Case]
    }

    static let derivationFiles = [
        "cwa/checkin-timeinterval-derivation.json", "cwa/transcribed/derive-time-interval-android.json",
    ]

    @Test(arguments: derivationFiles)
    func derivedWindowsMatchCWA(_ path: String) throws {
        let file = try Vectors.decode(DerivationFile.self, from: path)
        #expect(file.testCases.count >= 10)
        for vector in file.testCases {
            let window = StayPreparation.derivedWindow(
                start: ISOTime.parse(vector.startDate)!, end: ISOTime.parse(vector.endDate)!, parameters: .cwaProduction
            )
            if let expStart = vector.expStartDate, let expEnd = vector.expEndDate {
                #expect(
                    window == StayPreparation.Window(start: ISOTime.parse(expStart)!, end: ISOTime.parse(expEnd)!),
                    "\(vector.description)")
            } else {
                #expect(window == nil, "\(vector.description)")
            }
        }
    }

    @Test func splitsAtMidnightUTCLikeCWA() throws {
        let file = try Vectors.decode(SplitFile.self, from: "cwa/transcribed/split-checkin-by-midnight-utc.json")
        #expect(file.cases.count == 15)
        for vector in file.cases {
            let pieces = StayPreparation.splitAtMidnightUTC(
                .init(start: ISOTime.parse(vector.startDate)!, end: ISOTime.parse(vector.endDate)!))
            let expected = vector.expSplits.map {
                StayPreparation.Window(start: ISOTime.parse($0.start)!, end: ISOTime.parse($0.end)!)
            }
            #expect(pieces == expected, "\(vector.description)")
        }
    }

    @Test func transmissionRiskLevelByAge() throws {
        let file = try Vectors.decode(RiskLevelFile.self, from: "cwa/transcribed/transmission-risk-level.json")
        for vector in file.cases {
            let level = TransmissionRisk.level(
                vector: vector.transmissionRiskVector,
                stayDay: ISOTime.parse(vector.checkInStart)! / 86_400,
                reportDay: ISOTime.parse(vector.now)! / 86_400)
            #expect(level == vector.expTransmissionRiskLevel)
        }
        #expect(TransmissionRisk.hostWarningLevel == file.hostWarningTransmissionRiskLevel)
    }

    /// The built-in vectors are CWA's table, entry for entry.
    @Test func builtInVectorsAreCWAsTable() throws {
        let table = try Vectors.decode(RiskLevelFile.self, from: "cwa/transcribed/transmission-risk-level.json")
            .transmissionRiskVectors
        let reportDay: Int64 = 20_000
        for age in 0...20 {
            #expect(
                TransmissionRisk.vector(for: .symptomOnset(day: reportDay - Int64(age)), reportDay: reportDay)
                    == table["POSITIVE_startDate_age_\(age)"])
        }
        #expect(
            TransmissionRisk.vector(for: .symptomOnset(day: reportDay - 21), reportDay: reportDay)
                == table["POSITIVE_startDate_age_other"])
        #expect(
            TransmissionRisk.vector(for: .symptomOnset(day: reportDay + 1), reportDay: reportDay)
                == table["POSITIVE_startDate_age_other"])
        #expect(
            TransmissionRisk.vector(for: .symptomsInLastSevenDays, reportDay: reportDay)
                == table["POSITIVE_lastSevenDays"])
        #expect(
            TransmissionRisk.vector(for: .symptomsOneToTwoWeeksAgo, reportDay: reportDay)
                == table["POSITIVE_oneToTwoWeeksAgo"])
        #expect(
            TransmissionRisk.vector(for: .symptomsMoreThanTwoWeeksAgo, reportDay: reportDay)
                == table["POSITIVE_moreThanTwoWeeks"])
        #expect(
            TransmissionRisk.vector(for: .symptomsWithoutDate, reportDay: reportDay) == table["POSITIVE_noInformation"])
        #expect(TransmissionRisk.vector(for: .noSymptoms, reportDay: reportDay) == table["NEGATIVE"])
        #expect(TransmissionRisk.vector(for: .noInformation, reportDay: reportDay) == table["NO_INFORMATION"])
    }

    @Test func multiDayStayBecomesOneReportPerDayWithLevelsByAge() throws {
        // 2021-03-04 09:30 → 2021-03-06 09:45 UTC, reported 2021-03-07 by someone whose symptoms began 2021-03-05.
        let start = ISOTime.parse("2021-03-04T09:30:00Z")!
        let end = ISOTime.parse("2021-03-06T09:45:00Z")!
        let now = ISOTime.parse("2021-03-07T12:00:00Z")!
        let reports = StayPreparation.reports(
            stayStart: start, stayEnd: end, reportTime: now,
            symptoms: .symptomOnset(day: ISOTime.parse("2021-03-05T00:00:00Z")! / 86_400))
        // Onset 2 days before the report: vector [6, 8, 8, …]; ages 3, 2, 1 → 8, 8, 8.
        #expect(reports.map(\.day) == [18690, 18691, 18692])
        #expect(reports.map(\.transmissionRiskLevel) == [8, 8, 8])
        #expect(reports[0].startIntervalNumber == UInt32(start / 600))
        #expect(reports[0].endIntervalNumber == UInt32(ISOTime.parse("2021-03-05T00:00:00Z")! / 600))
        #expect(reports[1].period == 144)
        #expect(reports[2].endIntervalNumber == UInt32(ISOTime.parse("2021-03-06T10:20:00Z")! / 600))
        for report in reports { try report.validate() }
    }

    @Test func shortStaysAndZeroRiskPiecesAreDropped() {
        let start: Int64 = 1_614_850_800
        #expect(
            StayPreparation.reports(
                stayStart: start, stayEnd: start + 9 * 60, reportTime: start + 3600, symptoms: .noInformation
            ).isEmpty)
        // 14 days old with no symptoms: level 1, value 0 → dropped.
        #expect(
            StayPreparation.reports(
                stayStart: start, stayEnd: start + 3600, reportTime: start + 14 * 86_400, symptoms: .noSymptoms
            ).isEmpty)
        #expect(
            StayPreparation.reports(
                stayStart: start, stayEnd: start + 3600, reportTime: start + 3600, symptoms: .noSymptoms
            ).count == 1)
        #expect(
            StayPreparation.reports(stayStart: start + 100, stayEnd: start, reportTime: start, symptoms: .noSymptoms)
                .isEmpty)
    }
}
