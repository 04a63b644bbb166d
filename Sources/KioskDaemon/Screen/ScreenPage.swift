internal import Foundation
public import KioskCore

/// The kiosk's local screen page: one self-contained HTML document (inline style and script, no other assets).
///
/// It draws the station's screen (`ScreenModel`): the title and text in large type, coloured by the screen's kind, the
/// list (a holder's stays, a preview), a keypad's entry, and the choices. Every choice is a button of the same class,
/// size, colour and font (the consent rules ask for yes and no with equal weight); the one the physical buttons would
/// choose is outlined and marked for screen readers. The script polls `/screen.json` a few times a second, draws
/// what it gets (it keeps nothing else) and posts a choice to `/choose/<id>`. The text and the choices stay on the
/// screen at 800×480: the text scrolls on its own, the choices never move out of reach. Text that does not fit is
/// never cut silently: its box shows a wide scroll bar (white on black, whatever the screen's colours) and, while
/// more lies below what is shown, a bar at its foot saying so in the screen's language (“More text below”, with an
/// arrow the style draws).
public enum ScreenPage {
    /// The class every choice carries; the style sheet styles choices only through it.
    public static let buttonClass = "btn"

    /// A keypad of these keys (a PIN's) is laid out as a telephone's: 1-2-3, 4-5-6, 7-8-9, then delete, 0 and OK, so
    /// delete and OK lie apart; the keys stay in the order 0…9 for the buttons and screen readers.
    static let phoneKeys = (0...9).map(String.init).joined(separator: ",")

    /// A choice whose label is longer than this (in UTF-16 units, as the script counts) takes a whole row: half a row
    /// of 800 px holds two lines of about 16 characters of the smallest text.
    static let rowLabelLength = 32

    /// How often the page asks for the screen, in milliseconds.
    public static let pollMilliseconds = 300

    public static let style = """
        *{box-sizing:border-box;margin:0;padding:0}
        html,body{height:100%;background:#000;color:#fff;font-family:"DejaVu Sans",Verdana,sans-serif}
        body{display:flex;flex-direction:column;padding:1vh 1.5vw;gap:1vh;user-select:none;-webkit-user-select:none}
        #message{flex:1 1 auto;min-height:0;overflow-y:auto;display:flex;flex-direction:column;gap:1vh;padding:1vh 2.5vw;border-radius:2vh;border:0.6vh solid #fff;background:#1a1a1a;color:#fff}
        #message::-webkit-scrollbar{width:4vw}
        #message::-webkit-scrollbar-track{background:#000;border-radius:2vh}
        #message::-webkit-scrollbar-thumb{background:#fff;border:0.5vw solid #000;border-radius:2vh;min-height:8vh}
        #more{display:none;position:sticky;bottom:-1vh;flex:0 0 auto;margin:auto -2.5vw -1vh;padding:0.3vh 2.5vw;background:#000;color:#fff;font:bold max(var(--text),3.6vh) "DejaVu Sans",Verdana,sans-serif;line-height:1.2;text-align:center}
        #more::after{content:" \\25BC"}
        #message.more #more{display:block}
        #title{font-size:max(calc(var(--text) * 1.1),6.5vh);font-weight:bold;line-height:1.15}
        #lines p{font-size:max(var(--text),4vh);line-height:1.25;margin-bottom:0.3vh}
        #items{font-size:max(var(--text),3.6vh);line-height:1.25;padding-left:1.2em}
        #items li{margin-bottom:0.5vh}
        #entry{font:bold max(calc(var(--text) * 1.2),5vh) "DejaVu Sans Mono",monospace;letter-spacing:0.5em}
        #guide{display:flex;gap:2vw;align-items:center;font-size:max(var(--text),4vh);font-weight:bold}
        #guide .card{flex:0 0 auto;width:calc(var(--text) * 2.6);height:calc(var(--text) * 1.65);border:0.5vh solid #fff;border-radius:1vh;background:#0d2f6e}
        #guide .arrow{flex:0 0 auto;font-size:calc(var(--text) * 1.6);line-height:1;margin-right:3vw}
        #guide .code{flex:0 0 auto;width:calc(var(--text) * 1.65);height:calc(var(--text) * 1.65);border:0.5vh solid #fff;background:repeating-conic-gradient(#000 0 25%,#fff 0 50%) 0 0/50% 50%}
        #message.kind-idle{background:#1a1a1a;color:#fff;border-color:#fff}
        #message.kind-info{background:#0d2f6e;color:#fff;border-color:#fff}
        #message.kind-prompt{background:#0d2f6e;color:#fff;border-color:#ffd400}
        #message.kind-success{background:#0a4a18;color:#fff;border-color:#fff}
        #message.kind-warning{background:#ffd400;color:#000;border-color:#000}
        #message.kind-error{background:#8a0000;color:#fff;border-color:#fff}
        #choices{flex:0 0 auto;display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,max(30vw,calc(var(--text) * 9))),1fr));gap:1vh 1vw}
        #choices .row{grid-column:1/-1}
        #choices.keys{grid-template-columns:repeat(auto-fit,minmax(max(8vw,calc(var(--text) * 1.6)),1fr))}
        #choices.keys .wide{grid-column:span 3}
        #choices.phone{grid-template-columns:repeat(3,1fr)}
        #choices.phone .btn{min-height:max(calc(var(--text) * 1.25),7.5vh);font-size:max(var(--text),4.4vh);padding:0 1vw}
        #choices.phone .wide{grid-column:1/-1}
        #choices.phone [data-choice="key:1"]{grid-area:1/1}#choices.phone [data-choice="key:2"]{grid-area:1/2}
        #choices.phone [data-choice="key:3"]{grid-area:1/3}#choices.phone [data-choice="key:4"]{grid-area:2/1}
        #choices.phone [data-choice="key:5"]{grid-area:2/2}#choices.phone [data-choice="key:6"]{grid-area:2/3}
        #choices.phone [data-choice="key:7"]{grid-area:3/1}#choices.phone [data-choice="key:8"]{grid-area:3/2}
        #choices.phone [data-choice="key:9"]{grid-area:3/3}#choices.phone [data-choice="key:0"]{grid-area:4/2}
        #choices.phone [data-choice="key:delete"]{grid-area:4/1}#choices.phone [data-choice="key:ok"]{grid-area:4/3}
        .btn{min-width:0;min-height:max(calc(var(--text) * 1.4),9vh);padding:0.3vh 0.8vw;font:bold max(var(--text),3.6vh) "DejaVu Sans",Verdana,sans-serif;line-height:1.15;background:#fff;color:#000;border:0.6vh solid #fff;border-radius:1.5vh;cursor:pointer;overflow-wrap:anywhere;hyphens:auto}
        .btn[aria-current="true"]{outline:0.8vh solid #ffd400;outline-offset:0.3vh}
        .btn:active{background:#bbb;border-color:#bbb}
        #hint{font-size:max(var(--text),3vh);color:#fff}
        """

    /// The style with the panel's text size (`ScreenGeometry.textPixels`, CSS `--text`): no visitor text is smaller;
    /// on a larger screen the text grows with its height. Where the panel holds fewer than `hintLines` lines, the
    /// two buttons' hint is spoken only (speech says it after the choices), leaving its line to the text.
    public static func style(for geometry: ScreenGeometry) -> String {
        let text = geometry.textPixels
        let small = Int((Double(text) * 1.3 * Double(hintLines)).rounded(.up))
        return ":root{--text:\(text)px}\n" + style + "\n@media (max-height:\(small)px){#hint{display:none}}"
    }

    /// Lines of text a screen must hold to show the buttons' hint too.
    static let hintLines = 16

    public static let script = """
        (function () {
          var shown = "";
          var ARROWS = \(arrowsJSON);
          function el(tag, id, text) {
            var node = document.createElement(tag);
            if (id) { node.id = id; }
            if (text !== undefined) { node.textContent = text; }
            return node;
          }
          function show(screen) {
            var key = JSON.stringify(screen);
            if (key === shown) { return; }
            shown = key;
            document.documentElement.lang = screen.language;
            document.title = screen.pageTitle;
            var box = document.getElementById("message");
            box.className = "kind-" + screen.kind;
            box.replaceChildren();
            box.appendChild(el("h1", "title", screen.title));
            if (screen.guide) {
              var guide = el("div", "guide");
              guide.setAttribute("aria-hidden", "true");
              [["card", screen.guide.reader], ["code", screen.guide.camera]].forEach(function (part) {
                var picture = el("span");
                picture.className = part[0];
                var arrow = el("span", null, ARROWS[part[1]] || "");
                arrow.className = "arrow";
                guide.appendChild(picture);
                guide.appendChild(arrow);
              });
              box.appendChild(guide);
            }
            var lines = el("div", "lines");
            screen.lines.forEach(function (line) { lines.appendChild(el("p", null, line)); });
            box.appendChild(lines);
            if (screen.items.length > 0) {
              var list = el("ul", "items");
              screen.items.forEach(function (item) { list.appendChild(el("li", null, item)); });
              box.appendChild(list);
            }
            if (screen.keypad) { box.appendChild(el("p", "entry", screen.keypad.shown || "\\u00a0")); }
            var more = el("p", "more", screen.moreBelow);
            more.setAttribute("aria-hidden", "true");
            box.appendChild(more);
            box.scrollTop = 0;
            var choices = document.getElementById("choices");
            var phone = screen.keypad && screen.keypad.keys.join(",") === "\(phoneKeys)";
            choices.className = screen.keypad ? (phone ? "keys phone" : "keys") : "";
            choices.setAttribute("aria-label", screen.choicesLabel);
            choices.replaceChildren();
            var keys = screen.keypad ? screen.keypad.keys.map(function (key) { return "key:" + key; }) : [];
            screen.choices.forEach(function (choice, index) {
              var button = el("button", null, choice.label);
              button.type = "button";
              var extra = screen.keypad && keys.indexOf(choice.id) < 0 && !(phone && (choice.id === "key:delete" || choice.id === "key:ok"));
              button.className = "\(buttonClass)" + (extra ? " wide" : "") + (!screen.keypad && choice.label.length > \(rowLabelLength) ? " row" : "");
              button.setAttribute("data-choice", choice.id);
              if (index === screen.selected) { button.setAttribute("aria-current", "true"); }
              button.addEventListener("click", function () { choose(choice.id); });
              choices.appendChild(button);
            });
            document.getElementById("hint").textContent = screen.buttonHint;
            cue();
          }
          // The cue at the text's foot while more of it lies below what the box shows.
          function cue() {
            var box = document.getElementById("message");
            var below = box.scrollHeight - box.clientHeight - box.scrollTop;
            box.classList.toggle("more", box.scrollHeight > box.clientHeight + 1 && below > 1);
          }
          function answer(response) {
            if (!response.ok) { throw new Error("status " + response.status); }
            return response.json();
          }
          function choose(id) {
            fetch("/choose/" + encodeURIComponent(id), {method: "POST", cache: "no-store", credentials: "omit"})
              .then(answer).then(show).catch(function () {});
          }
          function poll() {
            fetch("/screen.json", {cache: "no-store", credentials: "omit"})
              .then(answer).then(show).catch(function () {})
              .then(function () { setTimeout(poll, \(pollMilliseconds)); });
          }
          document.getElementById("message").addEventListener("scroll", cue);
          window.addEventListener("resize", cue);
          if (window.ResizeObserver) { new ResizeObserver(cue).observe(document.getElementById("message")); }
          cue();
          poll();
        })();
        """

    /// The arrow the idle screen's guide draws towards each side.
    static let arrows: [ScreenGeometry.Side: String] = [
        .left: "\u{2190}", .right: "\u{2192}", .above: "\u{2191}", .below: "\u{2193}",
    ]
    private static var arrowsJSON: String {
        "{" + ScreenGeometry.Side.allCases.map { "\"\($0.rawValue)\": \"\(arrows[$0] ?? "")\"" }.joined(separator: ", ")
            + "}"
    }

    /// The guide's markup (as the script draws it).
    static func guideHTML(_ guide: ScreenModel.Guide?) -> String {
        guard let guide else { return "" }
        return "<div id=\"guide\" aria-hidden=\"true\"><span class=\"card\"></span><span class=\"arrow\">"
            + "\(arrows[guide.reader] ?? "")</span><span class=\"code\"></span><span class=\"arrow\">"
            + "\(arrows[guide.camera] ?? "")</span></div>"
    }

    /// `Content-Security-Policy` for the page: nothing but its own inline style and script (by their SHA-256) and
    /// requests to the kiosk itself. `sha256` is SHA-256 of UTF-8 bytes.
    public static func contentSecurityPolicy(geometry: ScreenGeometry, sha256: ([UInt8]) -> [UInt8]) -> String {
        let scriptHash = Data(sha256(Array(script.utf8))).base64EncodedString()
        let styleHash = Data(sha256(Array(style(for: geometry).utf8))).base64EncodedString()
        return "default-src 'none'; script-src 'sha256-\(scriptHash)'; style-src 'sha256-\(styleHash)'; "
            + "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The page, drawn with `screen` (the same markup the script draws later, so it reads without the script too).
    public static func html(_ screen: ScreenModel, geometry: ScreenGeometry = ScreenGeometry()) -> String {
        let lines = screen.lines.map { "<p>\(escape($0))</p>" }.joined(separator: "\n")
        let items =
            screen.items.isEmpty
            ? "" : "<ul id=\"items\">" + screen.items.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        let entry = screen.keypad.map { "<p id=\"entry\">\(escape($0.shown.isEmpty ? "\u{a0}" : $0.shown))</p>" } ?? ""
        let keys = Set((screen.keypad?.keys ?? []).map { "key:" + $0 })
        let phone = screen.keypad.map { $0.keys.joined(separator: ",") == phoneKeys } ?? false
        let choices = screen.choices.enumerated().map { index, choice in
            let current = index == screen.selected ? " aria-current=\"true\"" : ""
            // On a keypad, what is not a key (delete, OK, no PIN) is three keys wide: its word fits. On a telephone
            // keypad delete and OK take the places beside 0.
            let onPhoneRow = phone && (choice.id == "key:delete" || choice.id == "key:ok")
            let wide = screen.keypad != nil && !keys.contains(choice.id) && !onPhoneRow ? " wide" : ""
            // A long label (a stay, to delete or to share) takes a whole row of the choices.
            let row = screen.keypad == nil && choice.label.utf16.count > rowLabelLength ? " row" : ""
            return
                "<button type=\"button\" class=\"\(buttonClass)\(wide)\(row)\" data-choice=\"\(escape(choice.id))\"\(current)>"
                + "\(escape(choice.label))</button>"
        }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="\(escape(screen.language))">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(escape(screen.catalog[.pageTitle]))</title>
            <style>\(style(for: geometry))</style>
            </head>
            <body>
            <main id="message" class="kind-\(escape(screen.kind))" aria-live="polite" tabindex="0">
            <h1 id="title">\(escape(screen.title))</h1>
            \(guideHTML(screen.guide))<div id="lines">\(lines)</div>
            \(items)\(entry)
            <p id="more" aria-hidden="true">\(escape(screen.catalog[.pageMoreBelow]))</p>
            </main>
            <nav id="choices" aria-label="\(escape(screen.catalog[.pageChoices]))"\(screen.keypad == nil ? "" : (phone ? " class=\"keys phone\"" : " class=\"keys\""))>
            \(choices)
            </nav>
            <p id="hint">\(escape(screen.buttonHint))</p>
            <script>\(script)</script>
            </body>
            </html>

            """
    }

    /// Text for HTML content and attribute values.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
