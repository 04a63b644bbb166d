public import Foundation
internal import KioskCamera
internal import KioskCore
internal import KioskStore
internal import Synchronization

/// What `kiosk status` shows. No personal data; the venue appears only as its format and short fingerprint.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var ready: Bool
    public var readyMilliseconds: Int?
    public var simulated: Bool
    public var mode: String
    public var venueBound: Bool
    public var venueFormat: String?
    public var venueFingerprint: String?
    public var clockSynchronized: Bool
    public var time: Date
    public var openCheckIns: Int
    public var storedStays: Int?
    public var storeBytes: Int
    public var devices: [String: String]
    public var taps: Int
    public var checkIns: Int
    public var checkOuts: Int
    public var refusals: [String: Int]
    public var expiryRuns: Int
    public var metricsAddress: String?
    public var cardOnReader: Int?
    /// How many staff cards this kiosk enrolled (a count only).
    public var staffCards: Int?
    /// Where the local screen's page is served (`127.0.0.1:8080`); nil: no page.
    public var webAddress: String? = nil

    /// Lines for a person.
    public var humanLines: [String] {
        var lines = [String]()
        lines.append("Kiosk \(ready ? "ready" : "starting")\(simulated ? " (simulated hardware)" : ""), \(mode) mode")
        if venueBound {
            lines.append("Venue: bound (\(venueFormat ?? "?") code, fingerprint \(venueFingerprint ?? "?"))")
        } else {
            lines.append("Venue: not set up — open staff mode and show the venue's QR poster, or create a venue")
        }
        lines.append(
            "Clock: \(clockSynchronized ? "synchronized" : "NOT synchronized (check-ins paused)"), \(isoText(time))")
        lines.append(
            "Checked in now: \(openCheckIns); stays held: \(storedStays.map(String.init) ?? "?") (\(storeBytes / 1024) KiB)"
        )
        lines.append(
            "Taps: \(taps), check-ins: \(checkIns), check-outs: \(checkOuts), refused: \(refusals.values.reduce(0, +))")
        for (device, state) in devices.sorted(by: { $0.key < $1.key }) { lines.append("  \(device): \(state)") }
        if let staffCards { lines.append("Staff cards enrolled: \(staffCards)") }
        if let metricsAddress { lines.append("Metrics: http://\(metricsAddress)/metrics") }
        if let webAddress { lines.append("Screen: http://\(webAddress)/") }
        return lines
    }
}

extension KioskDaemon {
    /// Serves one control request (JSON line) and returns the answer (JSON line).
    func handleControl(_ line: String) async -> String {
        guard let request = ControlRequest(line: line) else {
            return ControlResponse.failure("not a valid control request").jsonLine
        }
        return await answer(request).jsonLine
    }

    func answer(_ request: ControlRequest) async -> ControlResponse {
        switch request.command {
        case "status":
            let status = await status()
            return ControlResponse(ok: true, lines: status.humanLines, data: Self.json(status))
        case "lights":
            guard let lights = simulation?.lights else {
                return .failure("lights are recorded only on a simulated kiosk")
            }
            let history = await lights.recordedLights()
            let lines = history.suffix(20).map { light in
                var line = "\(isoText(light.at))  \(light.pattern)  (\(light.outputs.joined(separator: "+")))"
                if let ends = light.ends {
                    let stop = min(ends, light.stopped ?? ends)
                    let played = Int((stop.timeIntervalSince(light.at) * 1000).rounded())
                    line += stop < ends ? "  replaced after \(played) ms" : "  \(played) ms"
                }
                return line
            }
            return ControlResponse(
                ok: true, lines: lines.isEmpty ? ["No lights shown yet."] : lines, data: Self.json(history))
        case "receipts":
            guard let printer = simulation?.receipts else {
                return .failure("receipts are kept as files only on a simulated kiosk")
            }
            let receipts = await printer.recordedReceipts()
            var lines = [String]()
            for receipt in receipts {
                lines.append("Receipt \(receipt.number): \(receipt.png)")
                lines += receipt.lines.map { "    \($0)" }
            }
            return ControlResponse(
                ok: true, lines: lines.isEmpty ? ["No receipts printed yet."] : lines, data: Self.json(receipts))
        case "tap":
            guard let number = request.card, number > 0 else { return .failure("say which card: --card N (1, 2, …)") }
            return await simulateTap { $0.place(card: number) }
        case "tap-foreign":
            return await simulateTap { $0.placeForeignCard() }
        case "tap-diary":
            return await simulateDiaryTap(request).response
        case "make-diary-card":
            return await makeDiaryCard(request)
        case "remove":
            guard simulation != nil else { return .failure("cards are simulated only on a simulated kiosk") }
            return response(await liftCard() ?? StationReport(), fallback: "The card was taken off the reader.")
        case "staff":
            guard let code = settings.station.staffCode else { return .failure("no staff code is configured") }
            return response(await loop.handle(.codeScanned(code)), fallback: "Staff code shown.")
        case "staff-command":
            guard let command = request.staffCommand else {
                return .failure(
                    "unknown staff command: use bind, create, rotate, reprint, enrol, enrol-staff, forget-staff, status-slip, wipe, wipe-confirm, leave"
                )
            }
            return response(await loop.handle(.staffCommand(command)), fallback: "Done.")
        case "enrol", "enrol-staff":
            guard let number = request.card, number > 0 else { return .failure("say which card: --card N (1, 2, …)") }
            guard let reader = simulation?.cards else {
                return .failure("cards are simulated only on a simulated kiosk")
            }
            if reader.knows(card: number) {
                return .failure("card \(number) has been used with this kiosk already; take a new number")
            }
            let asked = await loop.handle(.staffCommand(request.command == "enrol" ? .enrolCard : .enrolStaffCard))
            guard asked.shown.allSatisfy({ $0.kind != .error }) else { return response(asked, fallback: "") }
            let answer = await simulateTap(timeout: .seconds(25)) { $0.place(card: number) }
            reader.save()
            var lines = response(asked, fallback: "").lines + answer.lines
            var steps = ControlStep.steps(of: asked) + answer.steps
            // The new holder's answers, when given: may the kiosk match their stays, and a PIN.
            if answer.ok, request.command == "enrol", let matching = request.fields?["matching"] {
                var choices = [matching == "yes" ? "yes" : "no"]
                if let pin = request.fields?["pin"] {
                    let keys = pin.map { "key:\($0)" }
                    choices += ["set-pin"] + keys + ["key:ok"] + keys + ["key:ok"]
                } else {
                    choices.append("no-pin")
                }
                for choice in choices {
                    let report = await loop.handle(.chosen(choice))
                    steps += ControlStep.steps(of: report)
                    lines += response(report, fallback: "").lines
                }
            }
            return ControlResponse(ok: answer.ok, lines: lines, steps: steps)
        case "camera":
            return await cameraSequence(request)
        case "show-code":
            guard let camera = simulation?.codes else {
                return .failure("codes are shown this way only on a simulated kiosk")
            }
            let expectation = loop.expect([.codeScanned])
            defer { expectation.cancel() }
            if let path = request.path {
                do { camera.show(try ImageLoader.load(path: path)) } catch {
                    return .failure("the image cannot be read: \(error)")
                }
            } else if let text = request.text {
                do { try camera.show(text: text) } catch { return .failure("the code cannot be shown: \(error)") }
            } else {
                return .failure("give the code's text or an image file")
            }
            var reports = [StationReport]()
            if let first = await expectation.next(timeout: .seconds(5)) {
                reports.append(first.report)
                // More codes in the same picture arrive within a few frames.
                while let more = await expectation.next(timeout: .milliseconds(300)) { reports.append(more.report) }
            }
            camera.clear()
            try? await Task.sleep(for: .milliseconds(200))  // out of view long enough to count as gone
            guard !reports.isEmpty else {
                return .failure("the camera saw no QR code (is the whole code visible and sharp?)")
            }
            return response(StationReport(steps: reports.flatMap(\.steps)), fallback: "Code shown.")
        case "press":
            guard let name = request.button, let button = StationButton(rawValue: name) else {
                return .failure("press which button: confirm or cancel")
            }
            return response(await loop.handle(.buttonPressed(button)), fallback: "Pressed \(name).")
        case "choose":
            guard let id = request.text, !id.isEmpty else { return .failure("choose what: give a choice's id") }
            let before = await runner.screen()
            guard before.offers(id) else {
                return .failure(
                    "“\(id)” is not a choice on the screen now; the choices are: "
                        + before.choices.map(\.id).joined(separator: ", "))
            }
            return await withScreen(response(await loop.handle(.chosen(id)), fallback: ""))
        case "navigate":
            if request.button == "hold" {
                // Either button held for two seconds: the screen is said (and the next ones).
                return await withScreen(response(await loop.handle(.speakRequested), fallback: ""))
            }
            guard let name = request.button, let button = NavigationButton(rawValue: name) else {
                return .failure("navigate with which button: next, choose or hold")
            }
            return await withScreen(response(await loop.handle(.navigated(button)), fallback: ""))
        case "type":
            guard let text = request.text, !text.isEmpty else { return .failure("type what: give the characters") }
            var steps = [StationReport.Step]()
            for character in text where !character.isWhitespace && character != "-" {
                let id = "key:" + String(character).uppercased()
                guard await runner.screen().offers(id) else {
                    return .failure("the screen has no key “\(character)” now")
                }
                steps += await loop.handle(.chosen(id)).steps
            }
            if request.flag ?? true { steps += await loop.handle(.chosen("key:ok")).steps }
            return await withScreen(response(StationReport(steps: steps), fallback: ""))
        case "screen":
            return await withScreen(ControlResponse(ok: true, lines: []))
        case "advance":
            guard let clock = simulation?.clock else { return .failure("time can be moved only on a simulated kiosk") }
            guard let seconds = request.seconds, seconds > 0 else { return .failure("say how far: e.g. 90m, 8h, 15d") }
            guard seconds.isFinite, clock.read().now.timeIntervalSinceNow + seconds <= SimulatedTime.maximumOffset
            else {
                return .failure("the simulated time runs at most 100 years ahead of the real time: advance less")
            }
            clock.advance(by: seconds)
            var answer = response(await loop.handle(.tick), fallback: "")
            answer.lines.insert(
                "Time is now \(TimeText.iso8601(unixSeconds: Int64(clock.read().now.timeIntervalSince1970.rounded(.down)))).",
                at: 0)
            return answer
        case "clock":
            guard let clock = simulation?.clock else {
                return .failure("the clock can be set only on a simulated kiosk")
            }
            let synchronized = request.flag ?? true
            clock.setSynchronized(synchronized)
            return response(
                await loop.handle(.clockChanged(clock.read())),
                fallback: synchronized ? "Clock synchronized." : "Clock not synchronized.")
        case "report":
            return await report(card: request.card, answers: request.answers ?? [])
        case "sync":
            let result = await syncWarnings()
            return ControlResponse(ok: result.ok, lines: result.lines)
        case "load-warnings":
            guard let directory = request.path, !directory.isEmpty else {
                return .failure("say which folder to load warnings from (the USB stick's mount point)")
            }
            let result = await loadWarnings(directory: directory)
            return ControlResponse(ok: result.ok, lines: result.lines)
        default:
            return .failure("unknown command '\(request.command)'")
        }
    }

    /// `response` followed by what the screen shows now (`screenLines`), with the screen as JSON in `data`.
    private func withScreen(_ response: ControlResponse) async -> ControlResponse {
        let screen = await runner.screen()
        var answer = response
        answer.lines = response.lines.filter { !$0.isEmpty } + Self.screenLines(screen)
        answer.data = Self.json(screen)
        return answer
    }

    /// The screen as a person reads it: title, text, list, keypad, choices (the selected one marked `>`, each with
    /// its id for `kiosk simulate choose`).
    static func screenLines(_ screen: ScreenModel) -> [String] {
        var lines = ["[screen] \(screen.title)"]
        lines += screen.lines.map { "    \($0)" }
        lines += screen.items.map { "  • \($0)" }
        if let keypad = screen.keypad { lines.append("    [\(keypad.shown)]") }
        for (index, choice) in screen.choices.enumerated() where !choice.id.hasPrefix("key:") {
            lines.append("  \(index == screen.selected ? ">" : " ") \(choice.label)  (\(choice.id))")
        }
        return lines
    }

    /// `camera NAME [--loop]`: the simulated camera plays a 1280×720 sequence in real time (the Pi-budget harness,
    /// `Tools/pi-budget`). For a sequence with a code, waits until the station handled the code and answers how long
    /// after the code's first fully visible frame that was (`data`: `{"decodedAfterMs", "framesDropped"}`); `off`
    /// empties the scene; `stats` answers the frames skipped and the CPU time spent making frames so far.
    private func cameraSequence(_ request: ControlRequest) async -> ControlResponse {
        guard let camera = simulation?.codes else {
            return .failure("the camera is simulated only on a simulated kiosk")
        }
        guard let name = request.text, !name.isEmpty else {
            return .failure("say what the camera sees: empty, passerby, held, moving, phone, or off")
        }
        var stats: String {
            #"{"framesDropped":\#(camera.framesDropped),"renderCPUSeconds":\#(camera.renderCPUSeconds)}"#
        }
        if name == "stats" {
            return ControlResponse(ok: true, lines: [], data: stats)
        }
        if name == "off" {
            camera.clear()
            return ControlResponse(ok: true, lines: ["The camera sees nothing."], data: stats)
        }
        let expectation = loop.expect([.codeScanned])
        defer { expectation.cancel() }
        guard let live = camera.playLive(name, looping: request.flag ?? false) else {
            return .failure("no camera sequence of that name: empty, passerby, held, moving or phone")
        }
        guard let first = live.firstVisibleFrame else {
            return ControlResponse(ok: true, lines: ["The camera plays the sequence."], data: stats)
        }
        let visible = live.start + live.frameInterval * first
        let length = live.frameInterval * live.frameCount
        guard let handled = await expectation.next(timeout: length + .seconds(10)) else {
            camera.clear()
            return .failure("the camera saw no code in the sequence")
        }
        let decodedAfter = Double((ContinuousClock.now - visible).wholeNanoseconds) / 1e6
        // Read is what this asks; what the station made of the code (a sequence's code is no venue's) is in the lines.
        var answer = response(handled.report, fallback: "Code read.")
        answer.ok = true
        answer.data = #"{"decodedAfterMs":\#(decodedAfter),"framesDropped":\#(camera.framesDropped)}"#
        return answer
    }

    /// Makes simulated diary card N (new, in `request.path` or the simulation's directory) a diary card of the
    /// region, as field staff do with a new card: placed, read, made, taken away. `fields`: `matching` (yes or no),
    /// `language` (its holder's).
    private func makeDiaryCard(_ request: ControlRequest) async -> ControlResponse {
        // A new card reads as no kiosk card (refused, as the station says): what matters is that it was read.
        let placed = await simulateDiaryTap(request)
        guard placed.read, let diaryCards, let number = request.card else { return placed.response }
        var profile = CardProfile.unanswered
        if let matching = request.fields?["matching"] { profile.matchingAllowed = matching == "yes" }
        if let language = request.fields?["language"].flatMap(Language.init(rawValue:)) {
            profile.language = language.rawValue
        }
        let result: Result<Void, StationFailure>
        do throws(StationFailure) {
            try await diaryCards.make(profile: profile)
            result = .success(())
        } catch { result = .failure(error) }
        await liftCard()
        if case .failure(let failure) = result { return .failure("\(failure)") }
        return ControlResponse(ok: true, lines: ["Diary card \(number) made for the region."])
    }

    /// Places simulated diary card `request.card` (its memory in `request.path`, or the simulation's directory) and
    /// waits for the station's answer to reading it; `read`: the reader read it (whatever the station made of it).
    private func simulateDiaryTap(_ request: ControlRequest) async -> (response: ControlResponse, read: Bool) {
        guard let number = request.card, number > 0 else {
            return (.failure("say which card: --card N (1, 2, …)"), false)
        }
        guard diaryCards != nil else {
            return (.failure("this kiosk reads no diary cards: configure its region (docs/region.md)"), false)
        }
        var problem: String?
        // A diary card is opened with the region's token at its read: a longer wait, still one only a hang misses.
        let answer = await simulateTap(timeout: .seconds(25)) {
            problem = $0.placeDiaryCard(number: number, directory: request.path, cipher: crypto)
        }
        if let problem { return (.failure(problem), false) }
        return (answer, answer.ok || !answer.steps.isEmpty)
    }

    /// Places a card (or a foreign card) and waits for the station's answer to reading it.
    private func simulateTap(timeout: Duration = .seconds(5), _ place: (any SimulatedCardSlot) -> Void) async
        -> ControlResponse
    {
        guard let reader = simulation?.cards else { return .failure("cards are simulated only on a simulated kiosk") }
        await liftCard()
        let expectation = loop.expect([.cardRead])
        defer { expectation.cancel() }
        place(reader)
        guard let handled = await expectation.next(timeout: timeout) else {
            return .failure(
                "the reader did not read the card in time (see `kiosk simulate status` for the reader's state)")
        }
        return response(handled.report, fallback: "Card read.")
    }

    /// Takes whatever card lies on the simulated reader away and waits until the station heard it leave; returns
    /// that report, or nil when no card was there (or the station did not hear it in time).
    @discardableResult
    func liftCard() async -> StationReport? {
        guard let reader = simulation?.cards, reader.hasCard else { return nil }
        let removed = loop.expect([.cardRemoved])
        defer { removed.cancel() }
        reader.remove()
        return await removed.next(timeout: .seconds(3))?.report
    }

    private func response(_ report: StationReport, fallback: String) -> ControlResponse {
        let steps = ControlStep.steps(of: report)
        let lines = steps.compactMap(\.humanLine)
        let failed =
            report.indicated.contains(where: \.meansRefusal)
            || steps.contains {
                ["printFailed", "saveFailed", "enrolFailed", "wipeFailed", "expiryFailed"].contains($0.type)
            }
        return ControlResponse(
            ok: !failed, lines: lines.isEmpty ? (fallback.isEmpty ? [] : [fallback]) : lines, steps: steps)
    }

    func status() async -> DaemonStatus {
        let state = await runner.state
        let mode = await runner.mode
        let counters = await runner.counters
        let reading = clock.read()
        var modeName = "visitor"
        if case .staff = mode { modeName = "staff" }
        return DaemonStatus(
            ready: readyTime != nil, readyMilliseconds: readyTime.map { Int($0.wholeMilliseconds) },
            simulated: simulation != nil, mode: modeName, venueBound: state.venue != nil,
            venueFormat: state.venue?.format, venueFingerprint: state.venue?.fingerprint,
            clockSynchronized: reading.isSynchronized, time: reading.now,
            openCheckIns: state.openCheckIns(at: reading.now),
            storedStays: (try? store.counts())?.stays, storeBytes: storeBytes(), devices: devices.all(),
            taps: counters.taps, checkIns: counters.checkIns, checkOuts: counters.checkOuts,
            refusals: counters.refusals,
            expiryRuns: counters.expiryRuns, metricsAddress: metricsAddress.withLock { $0 },
            cardOnReader: simulation?.cards.cardOnReader, staffCards: state.staffCards.count,
            webAddress: webAddress.withLock { $0 })
    }

    static func json(_ value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(isoText(date))
        }
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// A UTC time as ISO 8601 for status lines and JSON, without Foundation's formatters (which bring ICU's calendar data
/// into the daemon's memory).
func isoText(_ date: Date) -> String {
    TimeText.iso8601(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
}
