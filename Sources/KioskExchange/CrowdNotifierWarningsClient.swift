import Foundation
public import KioskCore

/// Fetches the CrowdNotifier problematic events a health authority publishes beside its CKPW/1 index:
/// `<base>/crowdnotifier-v3.bin` (SwissCovid's and the SDKs' form), `<base>/crowdnotifier-v2.bin` (NotifyMe v2) and
/// `<base>/crowdnotifier-notifyme-v3.bin` (NotifyMe's v3 backend), each a CKCN/1 file (`CrowdNotifierEventPackage`) with a detached signature `….bin.sig` under the authority's key.
/// Each file is the authority's whole current list of events of its form, so a newer one replaces what the kiosk
/// kept of that form; a file older than the one last taken is refused (an old list replayed must not take events
/// away). Downloads use `If-None-Match`, so an unchanged file costs a `304`; a USB stick's copy is read with the same
/// checks. Only events under an identity of this kiosk's venue on the days it may hold stays are kept.
///
/// State (per form: the ETag and time of the last file taken, the events kept) lives in one file, written atomically.
public actor CrowdNotifierWarningsClient {
    public let baseURL: String
    let verifier: any SignatureVerifier
    let statePath: String
    let timeout: Duration
    public private(set) var state: CrowdNotifierWarningsState
    /// The kept events by identity, for matching at a tap: rebuilt when the events change, never per tap.
    public private(set) var index: CrowdNotifierEventIndex

    public init(
        baseURL: String, verifier: any SignatureVerifier, stateDirectory: String, timeout: Duration = .seconds(30)
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.verifier = verifier
        self.statePath = stateDirectory
        self.timeout = timeout
        let state = (try? CrowdNotifierWarningsState.load(from: stateDirectory)) ?? CrowdNotifierWarningsState()
        self.state = state
        self.index = CrowdNotifierEventIndex(state.allEvents)
    }

    /// What a sync did; no event content.
    public struct SyncReport: Equatable, Sendable {
        /// Forms whose file was taken (new or changed).
        public var filesTaken = 0
        /// Forms whose file was unchanged (`304`) or not published (`404`).
        public var filesUnchanged = 0
        public var eventsKept = 0
        /// Files refused, with the reason.
        public var rejected: [String] = []
    }

    /// Fetches every form from the authority. `interestingIdentities`: the identities of the kiosk's venue for every
    /// hour it may hold stays of.
    public func sync(interestingIdentities: Set<[UInt8]>) async throws(WarningsSyncError) -> SyncReport {
        try await sync(interestingIdentities: interestingIdentities, from: .remote)
    }

    /// Reads every form from a folder (a USB stick holding a copy of the authority's published folder). Throws
    /// `.noMedium` when the folder holds none of the files.
    public func sync(interestingIdentities: Set<[UInt8]>, fromDirectory directory: String)
        async throws(WarningsSyncError) -> SyncReport
    {
        guard Self.holdsEvents(directory) else { throw .noMedium }
        return try await sync(interestingIdentities: interestingIdentities, from: .directory(directory))
    }

    /// Whether `directory` holds a CKCN/1 file of any form.
    public static func holdsEvents(_ directory: String) -> Bool {
        CrowdNotifierEvent.Form.allCases.contains {
            LocalWarningsFiles.isRegularFile(directory + "/" + CrowdNotifierEventPackage.fileName($0))
        }
    }

    private func sync(interestingIdentities: Set<[UInt8]>, from source: WarningsFileSource)
        async throws(WarningsSyncError) -> SyncReport
    {
        var report = SyncReport()
        for form in CrowdNotifierEvent.Form.allCases {
            let name = CrowdNotifierEventPackage.fileName(form)
            var kept = state[form]
            let (status, body, etag) = try await get(
                "/" + name, ifNoneMatch: source.isRemote ? kept.etag : nil,
                limit: CrowdNotifierEventPackage.maximumSize, from: source)
            if status == 304 || status == 404 {
                report.filesUnchanged += 1
                continue
            }
            guard status == 200 else {
                report.rejected.append("\(name): " + source.unavailable(status))
                continue
            }
            let (signatureStatus, signature, _) = try await get(
                "/" + name + ".sig", ifNoneMatch: nil, limit: 1024, from: source)
            guard signatureStatus == 200 else {
                report.rejected.append("\(name): \(WarningPackageError.unsigned)")
                continue
            }
            let package: CrowdNotifierEventPackage
            do throws(WarningPackageError) {
                package = try CrowdNotifierEventPackage.verified(bytes: body, signature: signature, verifier: verifier)
            } catch {
                report.rejected.append("\(name): \(error)")
                continue
            }
            guard package.form == form else {
                report.rejected.append("\(name): events of another form than its name says")
                continue
            }
            if let taken = kept.createdAt, package.createdAt < taken {
                report.rejected.append("\(name): older than the list taken before (kept that one)")
                continue
            }
            kept.events = package.events.filter { interestingIdentities.contains($0.identity) }
            kept.createdAt = package.createdAt
            if source.isRemote { kept.etag = etag }
            state[form] = kept
            report.filesTaken += 1
            report.eventsKept += kept.events.count
        }
        try persist()
        return report
    }

    /// Drops kept events whose identities no longer matter (their hours are past what stays are kept for).
    public func retain(identities: Set<[UInt8]>) throws(WarningsSyncError) {
        for form in CrowdNotifierEvent.Form.allCases {
            state[form].events = state[form].events.filter { identities.contains($0.identity) }
        }
        try persist()
    }

    private func persist() throws(WarningsSyncError) {
        index = CrowdNotifierEventIndex(state.allEvents)
        do { try state.save(to: statePath) } catch { throw .storage }
    }

    private func get(_ path: String, ifNoneMatch etag: String?, limit: Int, from source: WarningsFileSource)
        async throws(WarningsSyncError) -> (Int, [UInt8], String?)
    {
        switch source {
        case .remote: try await boundedGet(baseURL + path, ifNoneMatch: etag, limit: limit, timeout: timeout)
        case .directory(let directory): try LocalWarningsFiles.get(directory + path, limit: limit)
        }
    }
}

/// What the CrowdNotifier client remembers between syncs.
public struct CrowdNotifierWarningsState: Codable, Equatable, Sendable {
    public struct Form: Codable, Equatable, Sendable {
        public var etag: String?
        /// `createdAt` of the file last taken.
        public var createdAt: UInt64?
        public var events: [CrowdNotifierEvent] = []
    }

    public var v2 = Form()
    public var v3 = Form()
    public var notifyMeV3 = Form()

    public init() {}

    subscript(form: CrowdNotifierEvent.Form) -> Form {
        get {
            switch form {
            case .v2: v2
            case .v3: v3
            case .notifyMeV3: notifyMeV3
            }
        }
        set {
            switch form {
            case .v2: v2 = newValue
            case .v3: v3 = newValue
            case .notifyMeV3: notifyMeV3 = newValue
            }
        }
    }

    /// The kept events of every form.
    var allEvents: [CrowdNotifierEvent] { CrowdNotifierEvent.Form.allCases.flatMap { self[$0].events } }

    private enum CodingKeys: String, CodingKey { case v2, v3, notifyMeV3 }

    /// Reads a state written before NotifyMe's v3 form was known too (no `notifyMeV3` key).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        v2 = try container.decode(Form.self, forKey: .v2)
        v3 = try container.decode(Form.self, forKey: .v3)
        notifyMeV3 = try container.decodeIfPresent(Form.self, forKey: .notifyMeV3) ?? Form()
    }

    static let fileName = "crowdnotifier.json"

    static func load(from directory: String) throws -> CrowdNotifierWarningsState {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName) else {
            return CrowdNotifierWarningsState()
        }
        return try JSONDecoder().decode(CrowdNotifierWarningsState.self, from: data)
    }

    func save(to directory: String) throws {
        try AtomicFile.write(Array(try JSONEncoder().encode(self)), named: Self.fileName, in: directory)
    }
}
