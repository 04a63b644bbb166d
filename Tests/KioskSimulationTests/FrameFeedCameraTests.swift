import Foundation
import KioskCamera
import KioskCameraTesting
import KioskCore
import KioskPrinter
import KioskSimulation
import Testing

@Suite struct FrameFeedCameraTests {
    static let venue = "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ2VudHVyIE1ZGhNBbSBCYWhuaG9mIDEsIEJlcmxpbg"

    @Test func renderedCodesDecodeWithLibzbar() throws {
        let frame = try QRFrame.render(text: Self.venue)
        #expect(frame.width == 640 && frame.height == 480)
        let codes = try ZBarImageScanner().scan(frame)
        #expect(codes.map(\.text) == [Self.venue])
    }

    @Test func binaryAndUnicodeTextSurvive() throws {
        let text = "Café Zürich — 東京 ✓"
        #expect(try ZBarImageScanner().scan(QRFrame.render(text: text)).map(\.text) == [text])
    }

    @Test func tooLongTextIsAClearError() {
        #expect(throws: QRFrameError.self) { try QRFrame.render(text: String(repeating: "x", count: 5000)) }
        #expect(throws: QRFrameError.tooLarge(modules: 177)) {
            try QRFrame.render(
                QRMatrix(size: 177, modules: Array(repeating: false, count: 177 * 177)), width: 320, height: 240)
        }
    }

    @Test func pushedFramesAreDeduplicated() throws {
        let camera = FrameFeedCamera(framesToForget: 3)
        let code = try QRFrame.render(text: "CODE-1")
        let blank = TestFrames.blank()
        #expect(try camera.push(blank).isEmpty)
        #expect(try camera.push(code) == ["CODE-1"])
        for _ in 0..<30 { #expect(try camera.push(code).isEmpty) }
        for _ in 0..<3 { #expect(try camera.push(blank).isEmpty) }
        #expect(try camera.push(code) == ["CODE-1"])
        #expect(camera.framesScanned == 36)
        #expect(throws: ZBarError.invalidImage) { try camera.push(GreyImage(width: 2, height: 2, pixels: [])) }
    }

    @Test func showAndClearWhileRunning() async throws {
        let camera = FrameFeedCamera(framesToForget: 2, frameInterval: .milliseconds(2))
        let runner = Task { await camera.run() }
        var events = camera.events.makeAsyncIterator()
        #expect(await events.next() == .state(.starting))
        #expect(await events.next() == .state(.running))
        try camera.show(text: "CODE-A")
        #expect(await events.next() == .code("CODE-A"))
        let framesAtFirstSighting = camera.framesScanned
        // Held in view for many frames: no second event.
        while camera.framesScanned < framesAtFirstSighting + 20 { try await Task.sleep(for: .milliseconds(2)) }
        camera.clear()
        let framesAtClear = camera.framesScanned
        while camera.framesScanned < framesAtClear + 5 { try await Task.sleep(for: .milliseconds(2)) }
        try camera.show(text: "CODE-A")
        #expect(await events.next() == .code("CODE-A"))
        runner.cancel()
        await runner.value
        #expect(await events.next() == nil)  // the stream finished
    }

    @Test(.timeLimit(.minutes(2))) func aPlayedSequenceGivesItsCodeOnce() async throws {
        let sequence = CameraSequence(.codeHeldStill, seed: 4)
        let camera = FrameFeedCamera(frameInterval: .milliseconds(1))
        camera.play(sequence)
        let runner = Task { await camera.run() }
        // The code left the picture by frame 108; the last frame stays in view after the sequence ended.
        while camera.framesScanned < sequence.frameCount + 10 { try await Task.sleep(for: .milliseconds(10)) }
        runner.cancel()
        await runner.value
        var codes: [String] = []
        for await event in camera.events {
            if case .code(let text) = event { codes.append(text) }
        }
        #expect(codes == sequence.codes)
    }
}
