import KioskCore
import Testing

/// The `region` section: the token with the region's keys for diary cards.
@Suite struct RegionConfigurationTests {
    static func problems(_ text: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try KioskConfiguration.parse(json: text, environment: environment)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func offByDefaultWithDefaultsForAllButTheName() throws {
        #expect(try KioskConfiguration.parse(json: "{}").region == nil)
        #expect(try KioskConfiguration.parse(json: #"{"region": null}"#).region == nil)
        let region = try #require(try KioskConfiguration.parse(json: #"{"region": {"name": "Ticino"}}"#).region)
        #expect(region.name == "Ticino")
        #expect(region.module == "/usr/lib/softhsm/libsofthsm2.so")
        #expect(region.token == "kiosk-region")
        #expect(region.pinCredential == "region-pin")
        let full = try KioskConfiguration.parse(
            json: """
                {"region": {"name": "Ticino", "module": "/usr/lib/x86_64-linux-gnu/pkcs11/libtpm2_pkcs11.so",
                 "token": "kiosk-7", "pinCredential": "tpm-pin"}}
                """)
        #expect(full.region?.module == "/usr/lib/x86_64-linux-gnu/pkcs11/libtpm2_pkcs11.so")
        #expect(full.region?.token == "kiosk-7")
        #expect(full.region?.pinCredential == "tpm-pin")
        // Shown and read back the same.
        #expect(try KioskConfiguration.parse(document: full.jsonValue()) == full)
    }

    @Test func badValuesAreNamed() {
        #expect(
            Self.problems(#"{"region": {}}"#) == [
                "region.name: missing: the region's name, the same at every kiosk (or null for the section)"
            ])
        #expect(
            Self.problems(#"{"region": {"name": "A region with a very long name"}}"#) == [
                "region.name: is 30 bytes in UTF-8: at most 20 (it is the cards' system identifier)"
            ])
        #expect(Self.problems(#"{"region": {"name": ""}}"#) == ["region.name: must not be empty"])
        #expect(Self.problems(#"{"region": {"name": "a\tb"}}"#) == ["region.name: must not contain control characters"])
        #expect(
            Self.problems(#"{"region": {"name": "R", "module": "libsofthsm2.so"}}"#) == [
                #"region.module: expected an absolute path (starting with /), got "libsofthsm2.so""#
            ])
        #expect(Self.problems(#"{"region": {"name": "R", "token": ""}}"#) == ["region.token: must not be empty"])
        #expect(Self.problems(#"{"region": {"name": "R", "pinCredential": "../pin"}}"#).count == 1)
        #expect(
            Self.problems(#"{"region": {"name": "R", "pin": "1234"}}"#).first?.hasPrefix("region.pin: unknown key")
                == true)
    }

    @Test func environmentVariablesSetTheSection() throws {
        let configuration = try KioskConfiguration.parse(
            json: "{}", environment: ["KIOSK_REGION_NAME": "Ticino", "KIOSK_REGION_TOKEN": "kiosk-7"])
        #expect(configuration.region?.name == "Ticino")
        #expect(configuration.region?.token == "kiosk-7")
        let byPath = Dictionary(uniqueKeysWithValues: KioskConfiguration.overridableKeys.map { ($0.path, $0.variable) })
        #expect(byPath["region.pinCredential"] == "KIOSK_REGION_PIN_CREDENTIAL")
        #expect(byPath["region.module"] == "KIOSK_REGION_MODULE")
    }
}
