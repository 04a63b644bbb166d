/// Turns the codes seen in each camera frame into check-in events: a code counts once while it is held in view, and
/// again only after it was missing from `framesToForget` consecutive frames (it left the view and came back).
///
/// A frame where libzbar misses a code that is still there (motion blur, glare) is common; one or two such frames
/// must not turn one held card into two check-ins, hence the count of frames rather than a single empty frame.
public struct CodeDeduplicator: Sendable, Equatable {
    /// Consecutive frames without a code after which it is forgotten (at least 1).
    public let framesToForget: Int
    /// Codes in view (or recently in view) and the number of consecutive frames each has been missing from.
    private var missing: [String: Int] = [:]

    public init(framesToForget: Int = 8) {
        precondition(framesToForget >= 1, "a code must be missing from at least one frame to be forgotten")
        self.framesToForget = framesToForget
    }

    /// The codes in `frame` that are new events, in the frame's order (a code twice in one frame counts once).
    public mutating func frame(_ codes: [String]) -> [String] {
        var new: [String] = []
        var present = Set<String>()
        for code in codes where present.insert(code).inserted {
            if missing.updateValue(0, forKey: code) == nil { new.append(code) }
        }
        for (code, count) in missing where !present.contains(code) {
            if count + 1 >= framesToForget {
                missing[code] = nil
            } else {
                missing[code] = count + 1
            }
        }
        return new
    }

    /// How many codes are currently remembered as in view.
    public var remembered: Int { missing.count }

    /// Forgets every code (the next sighting of any code is a new event).
    public mutating func reset() { missing.removeAll() }
}
