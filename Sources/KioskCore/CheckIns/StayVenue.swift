/// What a stay needs to know about the venue the kiosk is bound to. Built by the daemon from a parsed venue code.
public struct StayVenue: Sendable, Equatable {
    /// The venue's 32-byte location id (CWA `locationId`, CrowdNotifier/CLEA equivalent). Never logged.
    public var locationId: [UInt8]
    /// Human-readable name, shown to the card holder in their list of stays.
    public var description: String
    /// Human-readable address.
    public var address: String
    /// When an open stay here ends on its own.
    public var autoCheckout: AutoCheckoutRule
    /// For CrowdNotifier venues (SwissCovid, NotifyMe): what each stay keeps to match the venue's problematic events.
    public var crowdNotifier: CrowdNotifierVenueKeys?

    public init(
        locationId: [UInt8], description: String, address: String, autoCheckout: AutoCheckoutRule,
        crowdNotifier: CrowdNotifierVenueKeys? = nil
    ) {
        self.locationId = locationId
        self.description = description
        self.address = address
        self.autoCheckout = autoCheckout
        self.crowdNotifier = crowdNotifier
    }
}
