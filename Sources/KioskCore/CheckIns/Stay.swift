public import Foundation

/// One visit of a card holder to a venue: the plaintext that is sealed into the store under the card's record key.
public struct Stay: Sendable, Equatable, Identifiable {
    /// 16 random bytes naming the stay in the store (not derived from anything personal).
    public let id: StayID
    public let locationId: [UInt8]
    public let venueDescription: String
    public let venueAddress: String
    /// When the card tapped in.
    public let start: Date
    /// When the stay ends automatically (the venue's rule applied at check-in).
    public let latestEnd: Date
    /// When the card tapped out, if it did before `latestEnd`.
    public var checkedOut: Date?
    /// The holder shared this stay in a report after a positive test: warnings about it are their own and never
    /// shown to them.
    public var reported = false
    /// What matching CrowdNotifier problematic events about the venue needs (SwissCovid and NotifyMe venues); sealed
    /// with the stay, never stored or logged in clear.
    public var crowdNotifier: CrowdNotifierVenueKeys?

    public init(
        id: StayID, locationId: [UInt8], venueDescription: String, venueAddress: String,
        start: Date, latestEnd: Date, checkedOut: Date? = nil
    ) {
        self.id = id
        self.locationId = locationId
        self.venueDescription = venueDescription
        self.venueAddress = venueAddress
        self.start = start
        self.latestEnd = max(latestEnd, start)
        self.checkedOut = checkedOut.map { min(max($0, start), self.latestEnd) }
    }

    /// The end as known now: the checkout, or the automatic end once it has passed; nil while the stay is open.
    public func end(asOf now: Date) -> Date? {
        if let checkedOut { return checkedOut }
        return now >= latestEnd ? latestEnd : nil
    }

    /// True while the card is checked in here.
    public func isOpen(at now: Date) -> Bool { end(asOf: now) == nil }

    /// The latest moment this stay can end: what expiry is computed from before the stay is over.
    public var endBound: Date { checkedOut ?? latestEnd }

    /// The last moment the card was registered by this stay (check-in or checkout), for debouncing.
    public var lastTap: Date { checkedOut ?? start }
}

/// The store name of a stay: 16 random bytes.
public struct StayID: Sendable, Hashable {
    public let bytes: [UInt8]
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public static func random(using crypto: some CryptoProvider) throws(CryptoError) -> StayID {
        StayID(unchecked: try crypto.randomBytes(count: 16))
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Hex, for the UI to name a stay in "delete this stay". Not personal, but not logged either.
    public var hex: String { Hex.encode(bytes) }
}
