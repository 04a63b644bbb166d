internal import KioskProto
internal import SwiftProtobuf

extension VenueCodeParser {
    /// Parses a CrowdNotifier URL of `host` (SwissCovid, NotifyMe or another CrowdNotifier deployment). Accepts what
    /// the CrowdNotifier Android SDK accepts: optional `https://`/`http://`, optional `/` before `?`, further query
    /// parameters, and base64url with or without padding. Returns `nil` when the text is not a URL of `host`.
    public static func crowdNotifierVenue(_ text: String, host: CrowdNotifierHost, crypto: some CryptoProvider)
        throws(VenueCodeError) -> VenueCode?
    {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumInputBytes else { throw .tooLong(byteCount: bytes.count) }
        return try crowdNotifierVenue(bytes, host: host, crypto: crypto)
    }

    static func crowdNotifierVenue(_ bytes: [UInt8], host: CrowdNotifierHost, crypto: some CryptoProvider)
        throws(VenueCodeError) -> VenueCode?
    {
        guard let match = matchCrowdNotifier(bytes, host: host.host) else { return nil }
        let format = host.format
        guard let version = match.version, host.versions.contains(version) else { throw .unsupportedVersion(format) }
        guard !URLText.containsLineTerminator(match.payload), let raw = PayloadEncoding.decodeBase64(match.payload)
        else {
            throw .undecodablePayload(format)
        }
        if format == .notifyMe && version == 2 {
            return try notifyMeV2Venue(raw, crypto: crypto)
        }

        let payload: SwissCovid_QRCodePayload
        do {
            payload = try SwissCovid_QRCodePayload(serializedBytes: raw, options: decodingOptions)
        } catch {
            throw .undecodablePayload(format)
        }
        let location = payload.locationData
        if let problem = textProblem(location.description_p, mayBeEmpty: false) {
            throw .invalidDescription(format, problem)
        }
        if let problem = textProblem(location.address, mayBeEmpty: true) { throw .invalidAddress(format, problem) }
        if location.endTimestamp != 0 && location.startTimestamp > location.endTimestamp {
            throw .invalidTimestamps(format)
        }
        let seed = payload.crowdNotifierData.cryptographicSeed
        guard (16...64).contains(seed.count) else { throw .invalidCryptographicSeed(format) }

        var venue = VenueCode(
            format: format, urlVersion: version, payloadVersion: payload.version,
            name: location.description_p, address: location.address,
            startTimestamp: location.startTimestamp == 0 ? nil : location.startTimestamp,
            endTimestamp: location.endTimestamp == 0 ? nil : location.endTimestamp,
            cryptographicSeed: [UInt8](seed), publicKey: [UInt8](payload.crowdNotifierData.publicKey),
            canonicalPayload: [])
        let countryData = [UInt8](payload.countryData)
        if format == .notifyMe {
            let data: Ch_Ubique_Notifyme_Sdk_Backend_Model_NotifyMeLocationData
            do {
                data = try .init(serializedBytes: countryData, options: decodingOptions)
            } catch {
                throw .invalidCountryData(format)
            }
            guard textProblem(data.room, mayBeEmpty: true) == nil else { throw .invalidCountryData(format) }
            venue.notifyMe = NotifyMeVenueData(venueType: data.type.rawValue, room: data.room.isEmpty ? nil : data.room)
        } else {
            let data: SwissCovid_SwissCovidLocationData
            do {
                data = try .init(serializedBytes: countryData, options: decodingOptions)
            } catch {
                throw .invalidCountryData(format)
            }
            guard textProblem(data.room, mayBeEmpty: true) == nil, data.checkoutWarningDelayMs >= 0,
                data.automaticCheckoutDelaylMs >= 0
            else { throw .invalidCountryData(format) }
            venue.swissCovid = SwissCovidVenueData(
                version: data.version, venueType: data.type.rawValue, room: data.room,
                rawCheckoutWarningDelayMs: data.checkoutWarningDelayMs,
                rawAutomaticCheckoutDelayMs: data.automaticCheckoutDelaylMs,
                rawReminderDelayOptionsMs: data.reminderDelayOptionsMs)
        }
        venue.canonicalPayload = try canonicalBytes(payload, format: format)
        (venue.locationId, venue.locationIdHash) = try identifiers(venue.canonicalPayload, crypto: crypto)
        do {
            venue.crowdNotifier = try CrowdNotifierVenueKeys.v3(payload: venue.canonicalPayload, crypto: crypto)
        } catch {
            throw .cryptoFailure(error)
        }
        return venue
    }

    /// NotifyMe `?v=2`: a libcrowdnotifier v2 `QRCodeEntry` (no seed; times in milliseconds).
    static func notifyMeV2Venue(_ raw: [UInt8], crypto: some CryptoProvider) throws(VenueCodeError) -> VenueCode {
        let entry: CrowdnotifierV2_QRCodeEntry
        do {
            entry = try CrowdnotifierV2_QRCodeEntry(serializedBytes: raw, options: decodingOptions)
        } catch {
            throw .undecodablePayload(.notifyMe)
        }
        let content = entry.data
        if let problem = textProblem(content.name, mayBeEmpty: false) { throw .invalidDescription(.notifyMe, problem) }
        if let problem = textProblem(content.location, mayBeEmpty: true) { throw .invalidAddress(.notifyMe, problem) }
        guard textProblem(content.room, mayBeEmpty: true) == nil else { throw .invalidCountryData(.notifyMe) }
        let start = content.validFrom / 1000
        let end = content.validTo / 1000
        if end != 0 && start > end { throw .invalidTimestamps(.notifyMe) }
        let canonical = try canonicalBytes(entry, format: .notifyMe)
        let (locationId, locationIdHash) = try identifiers(canonical, crypto: crypto)
        // The identities hash the content re-serialised canonically (the bytes a proto3 generator writes); a code
        // without both nonces or with a key of another length cannot be matched, but is still a venue.
        let keys: CrowdNotifierVenueKeys?
        if content.notificationKey.count == SecretBoxSize.key, !entry.entryProof.nonce1.isEmpty,
            !entry.entryProof.nonce2.isEmpty
        {
            do {
                keys = try CrowdNotifierVenueKeys.v2(
                    content: try canonicalBytes(content, format: .notifyMe),
                    nonce1: [UInt8](entry.entryProof.nonce1), nonce2: [UInt8](entry.entryProof.nonce2),
                    notificationKey: [UInt8](content.notificationKey), crypto: crypto)
            } catch {
                keys = nil
            }
        } else {
            keys = nil
        }
        var venue = VenueCode(
            format: .notifyMe, urlVersion: 2, payloadVersion: entry.version, name: content.name,
            address: content.location,
            startTimestamp: start == 0 ? nil : start, endTimestamp: end == 0 ? nil : end,
            notifyMe: NotifyMeVenueData(
                venueType: content.venueType.rawValue, room: content.room.isEmpty ? nil : content.room),
            publicKey: [UInt8](entry.masterPublicKey),
            canonicalPayload: canonical, locationId: locationId, locationIdHash: locationIdHash)
        venue.crowdNotifier = keys
        return venue
    }

    /// `[http[s]://]<host>[/]?<query with v=N>#<payload>`; version `nil` when `v` is missing or not a number.
    /// Returns `nil` when the text is not a URL of `host` (the host must be followed by `/`, `?` or `#`).
    static func matchCrowdNotifier(_ bytes: [UInt8], host: String) -> (version: UInt32?, payload: ArraySlice<UInt8>)? {
        var index = 0
        if URLText.hasPrefix(bytes, "https://") { index = 8 } else if URLText.hasPrefix(bytes, "http://") { index = 7 }
        guard URLText.hasPrefix(bytes, host, at: index) else { return nil }
        index += host.utf8.count
        guard index < bytes.count, [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[index])
        else { return nil }
        if bytes[index] == UInt8(ascii: "/") { index += 1 }
        guard let hash = bytes[index...].firstIndex(of: UInt8(ascii: "#")) else { return nil }
        var version: UInt32?
        // No query at all (`host/#…`, NotifyMe v1): the host's code, of a version without a number.
        guard index == hash || bytes[index] == UInt8(ascii: "?") else { return nil }
        for parameter in bytes[min(index + 1, hash)..<hash].split(separator: UInt8(ascii: "&")) {
            let parameter = Array(parameter)
            if parameter.count > 2, parameter[0] == UInt8(ascii: "v"), parameter[1] == UInt8(ascii: "=") {
                version = URLText.number(parameter[2...])
            }
        }
        let payload = bytes[(hash + 1)...]
        guard !payload.isEmpty else { return nil }
        return (version, payload)
    }

    // MARK: Cléa

    /// `https://tac.gouv.fr[/]?v=<n>#<base64url LSP>`: reads the clear header, keeps the rest opaque.
    static func cleaVenue(_ bytes: [UInt8]) throws(VenueCodeError) -> VenueCode? {
        guard let match = matchCrowdNotifier(bytes, host: "tac.gouv.fr") else { return nil }
        guard let version = match.version else { throw .unsupportedVersion(.clea) }
        guard !URLText.containsLineTerminator(match.payload), let lsp = PayloadEncoding.decodeBase64(match.payload),
            lsp.count >= minimumCLEALength
        else { throw .undecodablePayload(.clea) }
        let header = CLEAHeader(
            version: lsp[0] >> 5, lspType: (lsp[0] >> 2) & 0x07,
            locationTemporaryId: Array(lsp[1..<17]), lspLength: lsp.count)
        guard header.version == 0 else { throw .unsupportedVersion(.clea) }
        return VenueCode(
            format: .clea, urlVersion: version, payloadVersion: UInt32(header.version), clea: header,
            canonicalPayload: lsp)
    }

    /// Header (17) + GCM tag (16) + compressed ephemeral key C0 (33): an LSP is never shorter.
    static let minimumCLEALength = 17 + 16 + 33
}
