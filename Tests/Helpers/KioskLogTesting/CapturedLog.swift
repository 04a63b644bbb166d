public import Logging
internal import Synchronization

/// What a logger was given, kept as text for tests that check what the kiosk logs (a control line was logged; no
/// card, venue, code or utterance ever is): each entry's level, and its message followed by its metadata as sorted
/// `key=value` pairs (the logger's own metadata merged with the entry's).
public final class CapturedLog: Sendable {
    /// One entry: its level, and its message and metadata as one line of text.
    public struct Entry: Sendable, Equatable {
        public let level: Logger.Level
        public let text: String
    }

    private let kept = Mutex<[Entry]>([])

    public init() {}

    /// Every entry, in the order logged.
    public var entries: [Entry] { kept.withLock { $0 } }

    /// Every entry's text, in the order logged.
    public var lines: [String] { entries.map(\.text) }

    /// A logger whose entries (at `level` and above) are kept here.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) {
        kept.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
            function: String, line: UInt
        ) {
            let all = self.metadata.merging(metadata ?? [:]) { $1 }
            let pairs = all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            log.append(Entry(level: level, text: "\(message) \(pairs)"))
        }
    }
}
