import Foundation
import KioskCamera
import KioskCameraTesting
import KioskCore
import KioskSimulation
import Testing

/// libzbar's real video path (`zbar_video_*` through libv4l2's entry points) driven by the V4L2 stand-in, in a child
/// process (`kiosk-camera-probe`) started with `LD_PRELOAD`: frame sequences in, JSON event lines out.
@Suite(.serialized) struct VideoPathTests {
    static let venue = "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ2VudHVyIE1ZGhNBbSBCYWhuaG9mIDEsIEJlcmxpbg"

    /// A directory of frame files for one test, removed afterwards.
    final class Frames {
        let directory: URL
        private var count = 0
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kiosk-frames-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Writes `image` once and returns its path.
        func file(_ image: GreyImage) throws -> String {
            count += 1
            let path = directory.appendingPathComponent("frame-\(count).pgm").path
            try TestFrames.writePGM(image, to: path)
            return path
        }
    }

    struct Probe {
        var events: [[String: String]]
        var result: ChildProcess.Result
        var codes: [String] { events.filter { $0["event"] == "code" }.compactMap { $0["text"] } }
        var states: [String] { events.filter { $0["event"] == "state" }.map { $0["reason"] ?? $0["state"] ?? "" } }
    }

    static func probe(
        frames: [String], arguments: [String], fault: String? = nil, unplugAfter: Int? = nil,
        log: String? = nil
    ) throws -> Probe {
        let executable = try ChildProcess.productPath("kiosk-camera-probe")
        let environment = try V4L2Shim.environment(frames: frames, fault: fault, unplugAfter: unplugAfter, log: log)
        let result = try ChildProcess.run(
            executable, [V4L2Shim.device] + arguments, environment: environment, timeout: 60)
        let events = result.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
        return Probe(events: events, result: result)
    }

    @Test func framesWithoutACodeGiveNoEvent() throws {
        let frames = try Frames()
        let blank = try frames.file(TestFrames.blank())
        let noise = try frames.file(TestFrames.noisy(TestFrames.blank(), amplitude: 60))
        let probe = try Self.probe(frames: [blank, noise, blank, noise, blank], arguments: ["--frames", "5"])
        #expect(probe.result.status == 0 && !probe.result.timedOut, "\(probe.result.standardError)")
        #expect(probe.codes.isEmpty)
        #expect(probe.states == ["starting", "running"])
        #expect(probe.events.last?["event"] == "end")
    }

    @Test func aCodeHeldFor30FramesIsOneEvent() throws {
        let frames = try Frames()
        let blank = try frames.file(TestFrames.blank())
        let code = try frames.file(QRFrame.render(text: Self.venue))
        let sequence = [blank, blank] + Array(repeating: code, count: 30) + [blank]
        let probe = try Self.probe(
            frames: sequence, arguments: ["--frames", "\(sequence.count)", "--forget-after", "3"])
        #expect(probe.result.status == 0 && !probe.result.timedOut, "\(probe.result.standardError)")
        #expect(probe.codes == [Self.venue])
    }

    @Test func aCodeThatLeavesAndComesBackIsASecondEvent() throws {
        let frames = try Frames()
        let blank = try frames.file(TestFrames.blank())
        let code = try frames.file(QRFrame.render(text: "CARD-42"))
        let other = try frames.file(QRFrame.render(text: "CARD-43"))
        // A one-frame dropout is still the same sighting; three blank frames (forget-after 3) end it.
        let sequence = [code, code, blank, code, code, blank, blank, blank, code, other, other]
        let probe = try Self.probe(
            frames: sequence, arguments: ["--frames", "\(sequence.count)", "--forget-after", "3"])
        #expect(probe.result.status == 0, "\(probe.result.standardError)")
        #expect(probe.codes == ["CARD-42", "CARD-42", "CARD-43"])
    }

    @Test func rotatedAndBlurredCodesAreDecoded() throws {
        let frames = try Frames()
        let clean = try QRFrame.render(text: Self.venue)
        let rotated = try frames.file(TestFrames.rotated(clean, degrees: 23))
        let blurred = try frames.file(TestFrames.blurred(clean, radius: 1))
        let blank = try frames.file(TestFrames.blank())
        let sequence = [rotated, blank, blank, blank, blurred]
        let probe = try Self.probe(
            frames: sequence, arguments: ["--frames", "\(sequence.count)", "--forget-after", "3"])
        #expect(probe.result.status == 0, "\(probe.result.standardError)")
        #expect(probe.codes == [Self.venue, Self.venue])
    }

    @Test(arguments: [("nodevice", "no-camera"), ("permission", "permission-denied"), ("busy", "busy")])
    func unavailableCamerasAreReportedWithBoundedRetries(fault: String, reason: String) throws {
        let frames = try Frames()
        let log = frames.directory.appendingPathComponent("shim.log").path
        let probe = try Self.probe(
            frames: [], arguments: ["--frames", "5", "--max-failures", "3", "--backoff-ms", "10"],
            fault: fault, log: log)
        #expect(probe.result.status == 0 && !probe.result.timedOut, "\(probe.result.standardError)")
        #expect(probe.states == ["starting", reason, "starting", reason, "starting", reason])
        let unavailable = probe.events.first { $0["reason"] == reason }
        #expect(unavailable?["message"]?.contains(V4L2Shim.device) == true)
        #expect((unavailable?["fix"]?.count ?? 0) > 20)
        let opens = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0 == "open" }
        #expect(opens.count == 3)
        #expect(probe.events.last == ["event": "end", "codes": "0", "failures": "3"])
    }

    @Test func unpluggedMidStreamIsReportedAndRetried() throws {
        let frames = try Frames()
        let code = try frames.file(QRFrame.render(text: "CARD-7"))
        let probe = try Self.probe(
            frames: [code], arguments: ["--frames", "50", "--max-failures", "2", "--backoff-ms", "10"],
            fault: "unplug", unplugAfter: 4)
        #expect(probe.result.status == 0 && !probe.result.timedOut, "\(probe.result.standardError)")
        #expect(probe.codes == ["CARD-7"])
        // Streaming, then unplugged; the retry finds no device any more.
        #expect(probe.states == ["starting", "running", "unplugged", "starting", "no-camera"])
        #expect(!probe.result.standardError.contains("CARD-7"))
    }

    @Test func theStandInIsLoadedAndServesEveryFrame() throws {
        let frames = try Frames()
        let log = frames.directory.appendingPathComponent("shim.log").path
        let blank = try frames.file(TestFrames.blank())
        let probe = try Self.probe(frames: [blank], arguments: ["--frames", "12"], log: log)
        #expect(probe.result.status == 0, "\(probe.result.standardError)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0 == "frame" }.count >= 12)
        #expect(!lines.contains { $0.hasPrefix("unknown-ioctl") }, "libzbar used an ioctl the stand-in does not answer")
    }
}
