import Foundation

/// Where a warnings client takes the authority's files from: its server, or a copy of what it publishes in a local
/// folder (a USB stick). Both go through the same checks; only the transport differs.
enum WarningsFileSource: Sendable {
    case remote
    case directory(String)

    var isRemote: Bool {
        if case .remote = self { true } else { false }
    }

    /// Why a listed file could not be taken (it is looked for again next time).
    func unavailable(_ status: Int) -> String {
        switch self {
        case .remote: "not available (\(status))"
        case .directory: "missing from the folder"
        }
    }
}

/// Reads files from a local folder the way `boundedGet` fetches them: 200 with the bytes, 404 when there is no such
/// regular file, `.oversized` past the limit (checked before reading, and again while reading).
enum LocalWarningsFiles {
    static func isRegularFile(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular
    }

    static func get(_ path: String, limit: Int) throws(WarningsSyncError) -> (Int, [UInt8], String?) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else {
            return (404, [], nil)
        }
        if let size = attributes[.size] as? Int, size > limit { throw .oversized }
        guard let handle = FileHandle(forReadingAtPath: path) else { return (404, [], nil) }
        defer { try? handle.close() }
        let data: Data?
        do { data = try handle.read(upToCount: limit + 1) } catch { return (404, [], nil) }
        let bytes = data.map { [UInt8]($0) } ?? []
        guard bytes.count <= limit else { throw .oversized }
        return (200, bytes, nil)
    }
}
