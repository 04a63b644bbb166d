internal import Foundation

/// The kiosk's local screen page: one self-contained HTML document (inline style and script, no other assets).
///
/// The page shows the station's message in large type, coloured by its kind, above one row of buttons. Every button
/// has the same class, size, colour and font: the consent rules ask for yes and no with equal weight. The script
/// polls `/screen.json` a few times a second and posts a press to `/press/<button>`.
public enum ScreenPage {
    /// The class every button carries; the style sheet styles buttons only through it.
    public static let buttonClass = "btn"

    /// How often the page asks for the screen, in milliseconds.
    public static let pollMilliseconds = 300

    public static let style = """
        *{box-sizing:border-box;margin:0;padding:0}
        html,body{height:100%;background:#000;color:#fff;font-family:"DejaVu Sans",Verdana,sans-serif}
        body{display:flex;flex-direction:column;padding:3vh 3vw;gap:3vh;user-select:none;-webkit-user-select:none}
        #message{flex:1;display:flex;flex-direction:column;justify-content:center;gap:3vh;padding:4vh 4vw;border-radius:2vh;border:1vh solid #fff;background:#1a1a1a;color:#fff}
        #title{font-size:8vh;font-weight:bold;line-height:1.15}
        #body{font-size:4.5vh;line-height:1.35;white-space:pre-line}
        #message.kind-idle{background:#1a1a1a;color:#fff;border-color:#fff}
        #message.kind-info{background:#0d2f6e;color:#fff;border-color:#fff}
        #message.kind-prompt{background:#0d2f6e;color:#fff;border-color:#ffd400}
        #message.kind-success{background:#0a5c1e;color:#fff;border-color:#fff}
        #message.kind-warning{background:#ffd400;color:#000;border-color:#000}
        #message.kind-error{background:#9e0000;color:#fff;border-color:#fff}
        #buttons{display:flex;gap:3vw;height:18vh}
        .btn{flex:1 1 0;min-width:0;height:100%;font:bold 6vh "DejaVu Sans",Verdana,sans-serif;background:#fff;color:#000;border:0.6vh solid #fff;border-radius:2vh;cursor:pointer}
        .btn:active{background:#bbb;border-color:#bbb}
        """

    public static let script = """
        (function () {
          var box = document.getElementById("message");
          var title = document.getElementById("title");
          var body = document.getElementById("body");
          var shown = "";
          function show(screen) {
            var key = JSON.stringify([screen.title, screen.body, screen.kind]);
            if (key === shown) { return; }
            shown = key;
            title.textContent = screen.title;
            body.textContent = screen.body;
            box.className = "kind-" + screen.kind;
          }
          function answer(response) {
            if (!response.ok) { throw new Error("status " + response.status); }
            return response.json();
          }
          function poll() {
            fetch("/screen.json", {cache: "no-store", credentials: "omit"})
              .then(answer).then(show).catch(function () {})
              .then(function () { setTimeout(poll, \(pollMilliseconds)); });
          }
          var buttons = document.querySelectorAll("button[data-button]");
          for (var i = 0; i < buttons.length; i++) {
            buttons[i].addEventListener("click", function (event) {
              var name = event.currentTarget.getAttribute("data-button");
              fetch("/press/" + encodeURIComponent(name), {method: "POST", cache: "no-store", credentials: "omit"})
                .then(answer).then(show).catch(function () {});
            });
          }
          poll();
        })();
        """

    /// `Content-Security-Policy` for the page: nothing but its own inline style and script (by their SHA-256) and
    /// requests to the kiosk itself. `sha256` is SHA-256 of UTF-8 bytes.
    public static func contentSecurityPolicy(sha256: ([UInt8]) -> [UInt8]) -> String {
        let scriptHash = Data(sha256(Array(script.utf8))).base64EncodedString()
        let styleHash = Data(sha256(Array(style.utf8))).base64EncodedString()
        return "default-src 'none'; script-src 'sha256-\(scriptHash)'; style-src 'sha256-\(styleHash)'; "
            + "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The page, showing `view` until the script's first answer.
    public static func html(_ view: ScreenView) -> String {
        let buttons = view.buttons.map {
            "<button type=\"button\" class=\"\(buttonClass)\" data-button=\"\(escape($0.id))\">\(escape($0.label))</button>"
        }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>Check-in kiosk</title>
            <style>\(style)</style>
            </head>
            <body>
            <main id="message" class="kind-\(escape(view.kind))" aria-live="polite">
            <h1 id="title">\(escape(view.title))</h1>
            <p id="body">\(escape(view.body))</p>
            </main>
            <nav id="buttons">
            \(buttons)
            </nav>
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
