// Runs the kiosk's camera path (CameraScanner over libzbar's video API) against one device and prints each event as
// a JSON line, for tests that drive libzbar through a V4L2 stand-in loaded with LD_PRELOAD, and for field checks.
//
//   kiosk-camera-probe DEVICE [--frames N] [--forget-after N] [--max-failures N] [--backoff-ms N] [--timeout-s N]
//
// Lines: {"event":"state","state":"starting"|"running"}, {"event":"state","state":"unavailable","reason":…,
// "message":…,"fix":…}, {"event":"code","text":…}, and last {"event":"end","codes":N,"failures":N}. Exit 0 after
// the frame limit, the failure limit or the timeout; 2 for bad arguments.
import Foundation
import KioskCamera
import KioskCore
import Logging

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kiosk-camera-probe: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let device = arguments.first, !device.hasPrefix("--") else {
    fail(
        "usage: kiosk-camera-probe DEVICE [--frames N] [--forget-after N] [--max-failures N] [--backoff-ms N] [--timeout-s N]"
    )
}
arguments.removeFirst()
var options: [String: Int] = [:]
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    guard ["--frames", "--forget-after", "--max-failures", "--backoff-ms", "--timeout-s"].contains(name) else {
        fail("unknown option \(name)")
    }
    guard let text = arguments.first, let value = Int(text), value > 0 else { fail("\(name) needs a positive number") }
    arguments.removeFirst()
    options[name] = value
}

let backoffMilliseconds = options["--backoff-ms"] ?? 500
let configuration = CameraScanner.Configuration(
    device: device,
    framesToForget: options["--forget-after"] ?? 8,
    backoff: RetryBackoff(initial: .milliseconds(backoffMilliseconds), maximum: .milliseconds(backoffMilliseconds * 8)),
    maximumConsecutiveFailures: options["--max-failures"],
    frameLimit: options["--frames"]
)
let camera = CameraScanner(
    configuration: configuration, logger: Logger(label: "kiosk.camera", factory: { _ in SwiftLogNoOpLogHandler() }))

func line(_ object: [String: String]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

let timeoutSeconds = options["--timeout-s"] ?? 60
let runner = Task { await camera.run() }
let timeout = Task {
    try await Task.sleep(for: .seconds(timeoutSeconds))
    runner.cancel()
}
var codes = 0
var failures = 0
for await event in camera.events {
    switch event {
    case .code(let text):
        codes += 1
        line(["event": "code", "text": text])
    case .state(.starting): line(["event": "state", "state": "starting"])
    case .state(.running): line(["event": "state", "state": "running"])
    case .state(.unavailable(let reason)):
        failures += 1
        line([
            "event": "state", "state": "unavailable", "reason": reason.name, "message": reason.message,
            "fix": reason.fix,
        ])
    }
}
timeout.cancel()
await runner.value
line(["event": "end", "codes": "\(codes)", "failures": "\(failures)"])
