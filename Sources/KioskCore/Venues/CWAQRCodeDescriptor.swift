/// Where a CWA `QRCodePayload` sits in a URL: CWA's `PresenceTracingQRCodeDescriptor`, as a closed set of shapes
/// instead of a regular expression so that matching is linear in the input and cannot hang.
public struct CWAQRCodeDescriptor: Sendable, Equatable {
    /// The URL shapes CWA's descriptors describe.
    public enum Shape: Sendable, Equatable {
        /// `https://e.coronawarn.app?v=<n>#<payload>`, with an optional `/` before `?` when `allowsSlash`.
        case coronaWarnApp(allowsSlash: Bool)
        /// `<prefix>…#…/CWA<n>/<payload>`; a `nil` prefix accepts any `http://` or `https://` URL.
        case vendor(prefix: String?)
    }

    /// The URL shape.
    public var shape: Shape
    /// How the payload is written.
    public var encoding: PayloadEncoding

    public init(shape: Shape, encoding: PayloadEncoding) {
        self.shape = shape
        self.encoding = encoding
    }

    /// The regular expression CWA's configuration gives for this descriptor (matched case-insensitively), or `nil` for
    /// the kiosk's own any-vendor descriptor.
    public var regexPattern: String? {
        switch shape {
        case .coronaWarnApp(let allowsSlash):
            allowsSlash
                ? ##"https://e\.coronawarn\.app/?\?v=(\d+)\#(.+)"## : ##"https://e\.coronawarn\.app\?v=(\d+)\#(.+)"##
        case .vendor(let prefix?) where prefix == Self.lucaPrefix:
            ##"https://app\.luca-app\.de/webapp/.*#.*/CWA(\d+)/(.+)"##
        case .vendor:
            nil
        }
    }

    static let lucaPrefix = "https://app.luca-app.de/webapp/"

    /// CWA's production descriptors (cwa-server `presence-tracing-parameters.yaml`): CWA's own URL and luca's.
    public static let production: [CWAQRCodeDescriptor] = [
        CWAQRCodeDescriptor(shape: .coronaWarnApp(allowsSlash: true), encoding: .base64),
        CWAQRCodeDescriptor(shape: .vendor(prefix: lucaPrefix), encoding: .base64),
    ]

    /// What the kiosk accepts: CWA's production descriptors plus vendor-integrated codes of any host. CWA allowlisted
    /// vendor hosts one by one; the kiosk reads only the CWA part and never passes vendor data on, so it need not.
    public static let kioskDefault: [CWAQRCodeDescriptor] =
        production + [CWAQRCodeDescriptor(shape: .vendor(prefix: nil), encoding: .base64)]
}
