import Foundation

/// One fuzz target: a parser of outside input, and the checks its results must pass. Each check traps on a violated
/// invariant, which is what libFuzzer reports as a crash.
struct FuzzTarget: Sendable {
    /// The name `KIOSK_FUZZ_TARGET` selects (and the corpus folder's prefix: `Tests/Fuzz/<name>-corpus`).
    let name: String
    /// What the input is.
    let summary: String
    let check: @Sendable ([UInt8]) -> Void
}

/// Every parser of outside input the kiosk and the authority have.
let fuzzTargets: [FuzzTarget] = [
    FuzzTarget(name: "venue", summary: "a scanned venue code (every family)", check: checkVenueCode),
    FuzzTarget(name: "card", summary: "an NFC card's GET_VERSION answer, UID and user memory", check: checkCardMemory),
    FuzzTarget(name: "card-code", summary: "a printed personal card code (KC1-…)", check: checkCardCode),
    FuzzTarget(name: "batch", summary: "a CKPB/1 batch, as bytes and as CKPB1: text", check: checkBatch),
    FuzzTarget(name: "ckpr", summary: "a CKPR/1 record's plaintext, sealed and tampered", check: checkRecord),
    FuzzTarget(name: "upload", summary: "an upload request to the authority: code, type, body", check: checkUpload),
    FuzzTarget(name: "ckpw", summary: "a CKPW/1 warnings package (past its signature)", check: checkWarningPackage),
    FuzzTarget(
        name: "crowdnotifier", summary: "a CKCN/1 file of CrowdNotifier problematic events (past its signature)",
        check: checkCrowdNotifierPackage),
    FuzzTarget(name: "warnings-index", summary: "the CKPW/1 index.json and the CWA hour index", check: checkIndexes),
    FuzzTarget(name: "zip", summary: "a zip archive (KioskZip's reader)", check: checkZip),
    FuzzTarget(name: "cwa", summary: "a CWA hourly package zip (past its signature)", check: checkCWAPackage),
    FuzzTarget(name: "control", summary: "a control socket request line", check: checkControlRequest),
    FuzzTarget(name: "http", summary: "a request to the local HTTP server, in chunks", check: checkHTTPRequest),
    FuzzTarget(name: "config", summary: "the configuration file and KIOSK_* variables", check: checkConfiguration),
    FuzzTarget(
        name: "region-keys", summary: "a region key export file (kiosk region import)", check: checkRegionKeyExport),
]

/// Traps with `message` when `condition` is false (in every build configuration).
func require(_ condition: Bool, _ message: StaticString) {
    if !condition { fatalError("\(message)") }
}

/// Error text must never repeat what was read: an error's description holding the whole input (when the input is
/// long enough not to be a word of the message itself) breaks that rule. Compared byte for byte (Foundation's
/// `contains` stops at a NUL).
func requireNoEcho(_ description: String, of input: [UInt8]) {
    guard input.count >= 16 else { return }
    let text = Array(description.utf8)
    let needle = Array(String(decoding: input, as: UTF8.self).utf8)
    guard text.count >= needle.count else { return }
    let echoed = (0...(text.count - needle.count)).contains { text[$0..<($0 + needle.count)].elementsEqual(needle) }
    require(!echoed, "error text repeats the input")
}

#if KIOSK_FUZZ
    /// The target chosen by `KIOSK_FUZZ_TARGET`, found once.
    let selectedTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["KIOSK_FUZZ_TARGET"] ?? ""
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            let names = fuzzTargets.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("kiosk-fuzz: set KIOSK_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    /// libFuzzer's entry point (built with `-sanitize=fuzzer,address -parse-as-library -DKIOSK_FUZZ`).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        selectedTarget.check(Array(UnsafeBufferPointer(start: data, count: size)))
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
    @_cdecl("kiosk_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        _ = selectedTarget
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
    }
#else
    /// Without the fuzzer: replays corpus files or crash reproducers through the same checks
    /// (`kiosk-fuzz TARGET FILE|DIR…`), or writes seed inputs made by the production encoders (`kiosk-fuzz seed DIR`).
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "seed", arguments.count == 2 {
                writeSeeds(to: arguments[1])
                return
            }
            guard arguments.count >= 2, let target = fuzzTargets.first(where: { $0.name == arguments[0] }) else {
                var usage = "usage: kiosk-fuzz TARGET FILE|DIR…   (replays inputs through the target's checks)\n"
                usage += "       kiosk-fuzz seed DIR            (writes seed inputs into DIR/<target>-corpus)\n"
                usage += "targets:\n" + fuzzTargets.map { "  \($0.name): \($0.summary)\n" }.joined()
                FileHandle.standardError.write(Data(usage.utf8))
                exit(2)
            }
            var files = [String]()
            for argument in arguments.dropFirst() {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                    FileHandle.standardError.write(Data("kiosk-fuzz: no such file: \(argument)\n".utf8))
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
                target.check([UInt8](FileManager.default.contents(atPath: file) ?? Data()))
            }
            print("kiosk-fuzz \(target.name): \(files.count) inputs replayed, no violation")
        }
    }
#endif
