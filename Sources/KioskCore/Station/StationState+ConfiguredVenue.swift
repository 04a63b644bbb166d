/// Why the venue code of the configuration (`venue.code`) was not bound at start. The messages name the key and
/// never quote the code.
public enum ConfiguredVenueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code is not a usable venue code (the parser's reason).
    case notUsable(VenueCodeError)
    /// The kiosk is bound to another venue and visitors may still be checked in there.
    case checkInsOpen(Int)
    /// Hashing the code failed.
    case crypto

    public var description: String {
        switch self {
        case .notUsable(let error):
            "venue.code cannot be bound: \(error.message). Correct the key, or remove it and bind the venue at the kiosk."
        case .checkInsOpen(let open):
            "venue.code names another venue than the one this kiosk is bound to, and \(open) visitor"
                + "\(open == 1 ? " is" : "s are") still checked in there: start the kiosk with venue.code when everyone "
                + "has left (open stays also end by themselves), or remove the key to keep the current venue."
        case .crypto: "venue.code cannot be bound: the kiosk's encryption failed."
        }
    }
}

extension StationState {
    /// The state with the configured venue code bound, or `nil` when the kiosk is already bound to that venue
    /// (nothing changes). The same rules as binding in staff mode: the code must parse; binding another venue
    /// resets the counter of open check-ins. Unlike staff at the kiosk, a start never replaces a venue while visitors
    /// may still be checked in there (like renewing a code): their check-out taps would start stays at the new venue.
    /// With the clock not synchronized, every counted check-in counts as open.
    public func bindingConfiguredVenue(
        _ text: String, configuration: StationConfiguration, crypto: any CryptoProvider,
        now: ClockReading, parser: VenueCodeParser = VenueCodeParser()
    )
        throws(ConfiguredVenueError) -> StationState?
    {
        let code: VenueCode
        do { code = try parser.parse(text, crypto: crypto) } catch { throw .notUsable(error) }
        let bound: BoundVenue
        do { bound = try BoundVenue(code, posterURL: nil, configuration: configuration, crypto: crypto) } catch {
            throw .crypto
        }
        var next = self
        if let current = venue {
            if crypto.constantTimeEquals(current.locationId, bound.locationId) {
                return nil
            }
            let open = openCheckIns(now: now)
            guard open == 0 else { throw .checkInsOpen(open) }
        }
        next.venue = bound
        next.openCheckInEnds = []
        return next
    }
}
