import Foundation
import KioskCore
import KioskOpenSSL

/// Checks one input: the parser returns a venue or a typed error, and every venue it returns is self-consistent
/// (ids of the right length, the canonical payload re-parses to the same venue). Any violation traps, which is what
/// the fuzzer reports.
func checkVenueParser(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    let venue: VenueCode
    do {
        venue = try VenueCodeParser.parse(text, crypto: fuzzCrypto)
    } catch {
        precondition(!error.message.isEmpty, "an error without a message")
        return
    }
    if let locationId = venue.locationId {
        precondition(locationId.count == 32 && venue.locationIdHash?.count == 32, "identifier lengths")
    } else {
        precondition(venue.format == .clea, "only Cléa venues have no location id")
    }
    if venue.format == .cwa || venue.format == .cwaVendor {
        let again = try? VenueCodeParser.parse(CWAVenueEncoder.url(payload: venue.canonicalPayload), crypto: fuzzCrypto)
        precondition(again?.locationId == venue.locationId, "canonical payload does not re-parse to the same venue")
        precondition(again?.canonicalPayload == venue.canonicalPayload, "canonical form is not stable")
    }
}

let fuzzCrypto = OpenSSLCrypto()

#if KIOSK_FUZZ
    /// libFuzzer's entry point (built with `-sanitize=fuzzer,address -parse-as-library -DKIOSK_FUZZ`).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzVenueCodeParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        checkVenueParser(UnsafeBufferPointer(start: data, count: size))
        return 0
    }

    /// libFuzzer's driver, exported by `libclang_rt.fuzzer` (LLVM 11 and later).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // The C symbol's own name.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable with `main` aliased to `<module>_main` (so that tests can link the module); defining
    /// that symbol and handing over to libFuzzer's driver keeps SwiftPM's link line working.
    @_cdecl("kiosk_fuzz_venue_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzVenueCodeParser(data, size) }
    }
#else
    /// Without the fuzzer: replays corpus files or crash reproducers (`kiosk-fuzz-venue FILE|DIR…`) through the same checks.
    @main
    struct FuzzVenueReplay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard !arguments.isEmpty else {
                FileHandle.standardError.write(
                    Data("usage: kiosk-fuzz-venue FILE|DIR… (replays inputs through the venue parser checks)\n".utf8))
                exit(2)
            }
            var files = [String]()
            for argument in arguments {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                    FileHandle.standardError.write(Data("kiosk-fuzz-venue: no such file: \(argument)\n".utf8))
                    exit(2)
                }
                if isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                    files += names.sorted().map { argument + "/" + $0 }
                } else {
                    files.append(argument)
                }
            }
            for file in files {
                let bytes = [UInt8](FileManager.default.contents(atPath: file) ?? Data())
                bytes.withUnsafeBufferPointer(checkVenueParser)
            }
            print("kiosk-fuzz-venue: \(files.count) inputs replayed, no violation")
        }
    }
#endif
