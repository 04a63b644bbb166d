import Foundation

/// Reads the committed vector files under `Tests/Vectors/`.
enum VectorFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    static func json<T: Decodable>(_ type: T.Type, _ path: String) throws -> T {
        try JSONDecoder().decode(type, from: data(path))
    }

    static func base64(_ text: String) -> [UInt8] {
        guard let data = Data(base64Encoded: text) else { return [] }
        return [UInt8](data)
    }
}
