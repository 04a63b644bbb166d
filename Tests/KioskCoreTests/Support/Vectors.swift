import Foundation

/// Loads the committed test vectors under `Tests/Vectors/` (copies of public upstream vectors and of the kiosk's own
/// format vectors; each folder's SOURCES.md names where they come from).
enum Vectors {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // KioskCoreTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Vectors")

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relativePath))
    }

    static func decode<T: Decodable>(_ type: T.Type, from relativePath: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(relativePath))
    }
}
