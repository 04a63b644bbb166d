/// What the holder said about symptoms when reporting: picks the transmission risk vector, as Corona-Warn-App did.
public enum SymptomIndication: Equatable, Sendable, Codable {
    /// Symptoms began on the UTC day `onsetDay` (days since the epoch).
    case symptomOnset(day: Int64)
    /// Symptoms began within the last seven days; the day is not known.
    case symptomsInLastSevenDays
    /// Symptoms began one to two weeks ago.
    case symptomsOneToTwoWeeksAgo
    /// Symptoms began more than two weeks ago.
    case symptomsMoreThanTwoWeeksAgo
    /// Symptoms, but no information on when they began.
    case symptomsWithoutDate
    /// No symptoms.
    case noSymptoms
    /// The holder did not say.
    case noInformation
}

/// Transmission risk level from the age of a stay and the holder's symptoms.
public enum TransmissionRisk {
    /// The transmission risk vector: entry `n` is the level for a stay `n` days (UTC dates) before the report.
    public static func vector(for symptoms: SymptomIndication, reportDay: Int64) -> [UInt8] {
        switch symptoms {
        case .symptomOnset(let onsetDay):
            let age = reportDay - onsetDay
            return (0...20).contains(age) ? onsetVectors[Int(age)] : Array(repeating: 1, count: 15)
        case .symptomsInLastSevenDays: return [4, 5, 6, 7, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1]
        case .symptomsOneToTwoWeeksAgo: return [1, 1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7, 6, 6, 4]
        case .symptomsMoreThanTwoWeeksAgo: return [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5]
        case .symptomsWithoutDate: return [5, 6, 8, 8, 8, 7, 5, 3, 2, 1, 1, 1, 1, 1, 1]
        case .noSymptoms: return [4, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
        case .noInformation: return [5, 6, 7, 7, 7, 6, 4, 3, 2, 1, 1, 1, 1, 1, 1]
        }
    }

    /// The level for a stay that started on `stayDay` reported on `reportDay` (UTC days): `vector[age]`, or 1 when
    /// the age is negative or past the vector's end.
    public static func level(vector: [UInt8], stayDay: Int64, reportDay: Int64) -> UInt8 {
        let age = reportDay - stayDay
        guard age >= 0, age < Int64(vector.count) else { return 1 }
        return vector[Int(age)]
    }

    /// Corona-Warn-App's level for warnings a venue's host or a contact tracer issues.
    public static let hostWarningLevel: UInt8 = 5

    /// Indexed by days between symptom onset and the report (CWA's `POSITIVE` + start date vectors).
    static let onsetVectors: [[UInt8]] = [
        [8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        [8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1],
        [6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1],
        [5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1, 1],
        [3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1, 1],
        [2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1, 1],
        [2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1, 1],
        [1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1, 1],
        [1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2, 1],
        [1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4, 2],
        [1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6, 4],
        [1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7, 6],
        [1, 1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8, 7],
        [1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8, 8],
        [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8, 8],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 5, 6, 8],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 5, 6],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 5],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2],
    ]
}
