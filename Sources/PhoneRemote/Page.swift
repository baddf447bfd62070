import Messaging

/// The controller page, its style sheet and its script: static text, no build step, nothing from a CDN. Data (a
/// status line) is inserted only HTML-escaped on the server; the script sets text with `textContent` only.
enum Page {
    /// Served with every page: scripts, styles and connections from this origin only, nothing inline.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    enum Kind {
        /// Type or scan a code to take control.
        case codeEntry
        /// In control: a text box, Send, Release.
        case controller
        /// A QR code's link (`/?code=…`): the claim as a form with the link's code, which the script posts at once
        /// and a page without JavaScript on a tap. A GET never claims (a link-preview robot fetches links too).
        case claim(code: String)
    }

    /// - Parameter refresh: a path the page loads again after a second (the receipt of a form send).
    static func html(_ kind: Kind, status: String?, maximumTextBytes: Int, refresh: String? = nil) -> String {
        let statusLine = (status ?? "").markupEscaped
        let refreshTag = refresh.map { "\n<meta http-equiv=\"refresh\" content=\"1; url=\($0.markupEscaped)\">" } ?? ""
        let body: String
        switch kind {
        case .codeEntry:
            body = """
                <form method="post" action="/claim">
                <label for="code">Code shown on the screen</label>
                <input id="code" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
                <button type="submit">Take control</button>
                </form>
                """
        case .claim(let code):
            body = """
                <form id="claim" method="post" action="/claim">
                <input type="hidden" name="code" value="\(code.markupEscaped)">
                <button type="submit">Take control</button>
                </form>
                """
        case .controller:
            body = """
                <form id="send" method="post" action="/send">
                <label for="text">Message for the screens</label>
                <textarea id="text" name="text" rows="4" maxlength="\(maximumTextBytes)" required></textarea>
                <button type="submit">Send</button>
                </form>
                <form id="release" method="post" action="/release">
                <button type="submit" class="secondary">Release</button>
                </form>
                """
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">\(refreshTag)
            <title>Multiscreen remote</title>
            <link rel="stylesheet" href="/app.css">
            </head>
            <body>
            <main>
            <h1>Multiscreen</h1>
            <p id="status" role="status" aria-live="polite">\(statusLine)</p>
            \(body)
            </main>
            <script src="/app.js"></script>
            </body>
            </html>

            """
    }

    static let css = """
        * { box-sizing: border-box; }
        body { margin: 0; font: 1.125rem/1.4 system-ui, sans-serif; background: #101418; color: #f4f4f4; }
        main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.5rem; margin: 0 0 0.5rem; }
        label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
        input, textarea { width: 100%; font: inherit; padding: 0.75rem; border-radius: 0.5rem;
          border: 2px solid #8a96a3; background: #fff; color: #111; }
        button { display: block; width: 100%; min-height: 3rem; margin-top: 0.75rem; font: inherit; font-weight: 600;
          border: 0; border-radius: 0.5rem; background: #3d8bfd; color: #fff; }
        button.secondary { background: #4a5562; }
        button:disabled { opacity: 0.5; }
        :focus-visible { outline: 3px solid #ffcc00; outline-offset: 2px; }
        #status { min-height: 1.5em; }

        """

    /// Posts a link's claim at once; upgrades the Send form to the WebSocket when it can (without it the form posts
    /// as usual).
    static let javascript = """
        "use strict";
        (function () {
          var status = document.getElementById("status");
          // The QR code's link: post its code at once (a GET never claims), leaving "/" in the history, not the
          // spent link. The claim's answer, at /claim, is shown as "/" too: a reload is then a plain GET.
          var claim = document.getElementById("claim");
          if (claim) {
            history.replaceState(null, "", "/");
            status.textContent = "Taking control…";
            claim.submit();
            return;
          }
          if (location.pathname === "/claim") { history.replaceState(null, "", "/"); }
          var form = document.getElementById("send");
          if (!form) { return; }
          var text = document.getElementById("text");
          var socket = null;
          var ended = false;
          function say(line) { status.textContent = line; }
          function connect() {
            var scheme = location.protocol === "https:" ? "wss://" : "ws://";
            var ws = new WebSocket(scheme + location.host + "/ws");
            ws.onopen = function () { socket = ws; };
            ws.onmessage = function (event) {
              var reply;
              try { reply = JSON.parse(event.data); } catch (e) { return; }
              if (reply.method === "message.shown" && reply.params) {
                var count = Number(reply.params.screens);
                say("Message " + String(reply.params.id) + " shown on " + String(count) +
                    (count === 1 ? " screen." : " screens."));
              } else if (reply.error) {
                var why = String(reply.error.message);
                if (why === "superseded") { why = "Another phone took control."; }
                if (why === "idle") { why = "Control ended after a quiet minute. Scan the code again."; }
                if (why === "closed") { why = "Control ended when the page closed. Scan the code again."; }
                say(why);
              } else if (reply.result) {
                say("Sent (message " + String(reply.result.id) + ").");
                text.value = "";
              }
            };
            ws.onclose = function (event) {
              socket = null;
              if (event.code === 1008) {
                ended = true;
                form.querySelector("button").disabled = true;
                text.disabled = true;
              }
            };
          }
          form.addEventListener("submit", function (event) {
            if (ended) { event.preventDefault(); return; }
            if (!socket || socket.readyState !== WebSocket.OPEN) { return; }
            event.preventDefault();
            socket.send(JSON.stringify({ method: "send", params: { text: text.value } }));
            say("Sending…");
          });
          connect();
        })();

        """
}
