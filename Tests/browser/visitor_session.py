#!/usr/bin/python3
"""A visitor's own session on the simulated kiosk's page, in a real browser (Debian's chromium + chromium-driver,
driven by Selenium), and the same scenario with the two physical buttons only.

    Tests/browser/visitor_session.py PATH/TO/kiosk ARTEFACT_DIR

kiosk-authority (built next to kiosk) is the health authority: the kiosk is configured with its key. Staff bind a
CWA venue and enrol cards 1 and 3 (their holders allow matching) and card 2 (with a PIN); cards 1 and 3 check in
together three times. In Chromium at 800x480: "My check-ins", card 1 tapped, the list and its count, one stay
deleted, two shared with consent and printed. Checked in the browser, not on the HTML text: the consent answers have
identical computed style and size, nothing is selected and no choice lies outside the window; no text of the
disclosure or the consent preview is cut (it fits its box, or the box scrolls with a scroll bar at least 20 px
wide and the "more text below" cue inside it, and its last line comes into view; also in every language below);
after the card is taken away no stay, venue or warning is in the DOM; a page from another origin cannot choose
anything. The receipt
is decoded (zbarimg) and its CKPB/1 records opened with the venue's location id (CKPR/1, docs/PROTOCOL.md): exactly
the consented reports, nothing more. Every view the English scenarios shoot is audited too (axe-core and contrast,
below). Card 1's last receipt is accepted and published by kiosk-authority and the signed package loaded from a
folder (`kiosk simulate load-warnings`, as from a USB stick): card 3 is warned. Then, in each of the four languages
and at 800x480 and 1920x1080: the language chosen on the idle screen, the page's `lang`, and on every view zero WCAG
2.1 A/AA violations by axe-core 4.12 (from a hash-pinned PyPI wheel), text contrast of at least 7:1, every choice
inside the window and every choice's words inside its button, no text cut (it fits, or scrolls with a wide bar and
the cue), every visible text's capital H at least what EN 301 549 5.1.4 asks on the kiosk's default panel (0.7 degrees
at 40 cm on a 7-inch 800x480 panel: 25.6 px, measured as Chromium draws it; the probes are first shown to catch 14 px
text and a date split over two lines) and no date or time broken across lines. The views: languages, idle, tap your card and its last
20 seconds (the time running out, "More time"), card 1's session and its next page of stays, its settings, sharing up to the question (the
stays to share, two selected, symptoms, output, the disclosure, the consent question; answered no, nothing printed),
card 2's PIN keypad, card 3's news at its tap, its session and its warning, deleting or blocking, a stay up to its question and the questions of deleting everything and of blocking (each
starting on "Keep"), and
staff mode opened after the visitor's choice (in that language): the menu and its second page, a new card's questions
(matching, the language offered before answering, a PIN)
and the prompts to bind a venue and to enrol a card; then, with speech asked for (a button held), the speech
settings offered last on every spoken screen (volume and speed). Screenshots of every view go to ARTEFACT_DIR. Exits
non-zero on the first failed check.
"""

import base64
import hashlib
import hmac
import http.server
import itertools
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

VENUE = (
    "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2e"
    "NIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"
)
VENUE_WORDS = ["Friseur", "Berlin"]


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)
    print(f"ok: {what}")


class Kiosk:
    def __init__(self, binary, state, config):
        self.binary, self.state = binary, state
        self.log = open(os.path.join(state, "kiosk.log"), "w")
        self.process = subprocess.Popen(
            [binary, "run", "--simulate", "--state-dir", state, "--web", "127.0.0.1:0", "--log-level", "warning",
             "--config", config],
            stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            status = self.run("status", "--json", ok=None)
            if status.returncode == 0:
                self.web = json.loads(status.stdout)["webAddress"]
                return
            time.sleep(0.1)
        raise Failed("the simulated kiosk did not start")

    def run(self, *arguments, ok=True):
        result = subprocess.run(
            [self.binary, "simulate", arguments[0], "--state-dir", self.state, *arguments[1:]],
            capture_output=True, text=True, timeout=120)
        if ok is True and result.returncode != 0:
            raise Failed(f"kiosk simulate {' '.join(arguments)}: {result.stdout}{result.stderr}")
        return result

    def screen(self):
        answer = json.loads(self.run("screen", "--json").stdout)
        return json.loads(answer["data"])

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def set_up(kiosk):
    kiosk.run("staff")
    kiosk.run("show-code", VENUE)
    kiosk.run("enrol", "--card", "1", "--matching", "yes")
    # Card 2's holder chose a PIN: its session opens on the keypad (audited for accessibility).
    kiosk.run("enrol", "--card", "2", "--matching", "yes", "--pin", "2468")
    # Card 3 is there whenever card 1 is: warned once card 1's reports are published (warned()).
    kiosk.run("enrol", "--card", "3", "--matching", "yes")
    kiosk.run("staff-menu", "leave")
    # Three stays: two ended, one still open.
    for minutes in ("60m", "60m", None):
        kiosk.run("advance", "2m")
        kiosk.run("tap", "--card", "1")
        kiosk.run("tap", "--card", "3")
        if minutes:
            kiosk.run("advance", minutes)
            kiosk.run("tap", "--card", "1")
            kiosk.run("tap", "--card", "3")
        kiosk.run("remove")
        kiosk.run("advance", "30m")


def authority_key(authority, directory):
    """`kiosk-authority init`: the health authority's signing key; returns the public key it printed."""
    initialized = subprocess.run([authority, "init", "--dir", directory], capture_output=True, text=True, timeout=60)
    check(initialized.returncode == 0 and "BEGIN PUBLIC KEY" in initialized.stdout, "the health authority set up")
    return initialized.stdout


def warned(kiosk, authority, directory):
    """Card 1's last receipt taken to the test centre (its QR codes scanned, `kiosk-authority accept`), the package
    published and brought to the kiosk on a USB stick (`kiosk simulate load-warnings`): card 3 has a warning."""
    receipts = json.loads(kiosk.run("receipts", "--json").stdout)
    codes = receipt_codes(receipts[-1]["png"])
    check(codes, "the receipt's QR codes are CKPB/1 batches")
    for arguments in (["accept", "--dir", directory, *codes], ["publish", "--dir", directory]):
        answer = subprocess.run([authority, *arguments], capture_output=True, text=True, timeout=60)
        check(answer.returncode == 0, f"kiosk-authority {arguments[0]}: {answer.stdout.strip()}{answer.stderr}")
    loaded = kiosk.run("load-warnings", os.path.join(directory, "www")).stdout
    check("1 package(s) loaded" in loaded, f"the signed package loaded from the stick: {loaded.strip()}")


# MARK: - The browser

class Page:
    def __init__(self, url, artefacts, size):
        options = Options()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--window-size={size[0]},{size[1]}", "--force-device-scale-factor=1"):
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium")
        self.driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        # The page's own viewport is exactly the screen's size (a window's size would include its frame).
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})
        self.url, self.artefacts, self.size = url, artefacts, size
        self.driver.get(url)
        self.shots = 0
        # The smallest capital H measured on any view (readable()).
        self.smallest = float("inf")
        # axe-core's script: when set, every view shot is also audited (accessible()).
        self.axe = None

    def title(self):
        return self.driver.find_element(By.ID, "title").text

    def lang(self):
        return self.driver.execute_script("return document.documentElement.lang")

    def kind(self):
        classes = self.driver.find_element(By.ID, "message").get_attribute("class").split()
        return next((c.removeprefix("kind-") for c in classes if c.startswith("kind-")), None)

    def wait_for(self, predicate, what, seconds=15):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                if predicate():
                    return
            except Exception:
                pass
            time.sleep(0.1)
        raise Failed(f"timed out waiting for {what}; the page shows: {self.driver.find_element(By.TAG_NAME, 'body').text!r}")

    def wait_title(self, title):
        self.wait_for(lambda: self.title() == title, f"the title {title!r}")

    def choose(self, choice_id, then_title=None):
        before = self.driver.find_element(By.TAG_NAME, "body").text
        # A screen with a countdown is drawn anew every second: a button found just before may be gone; find it again.
        for attempt in range(5):
            try:
                self.driver.find_element(By.CSS_SELECTOR, f'button[data-choice="{choice_id}"]').click()
                break
            except StaleElementReferenceException:
                if attempt == 4:
                    raise
        if then_title:
            self.wait_title(then_title)
        else:
            self.wait_for(lambda: self.driver.find_element(By.TAG_NAME, "body").text != before, f"{choice_id} taken")

    def choice_ids(self):
        return [b.get_attribute("data-choice") for b in self.driver.find_elements(By.CSS_SELECTOR, "#choices button")]

    def current(self):
        """The id of the choice the buttons would choose (outlined), or None."""
        for button in self.driver.find_elements(By.CSS_SELECTOR, "#choices button"):
            if button.get_attribute("aria-current") == "true":
                return button.get_attribute("data-choice")
        return None

    def labels(self):
        return [b.text for b in self.driver.find_elements(By.CSS_SELECTOR, "#choices button")]

    def shot(self, name):
        if self.axe:
            accessible(self, name)
        self.shots += 1
        path = os.path.join(self.artefacts, f"{self.size[0]}x{self.size[1]}-{self.shots:02d}-{name}.png")
        self.driver.save_screenshot(path)
        # Every choice is reachable without scrolling the page: inside the window.
        outside = self.driver.execute_script("""
            var out = [];
            document.querySelectorAll('#choices button').forEach(function (b) {
              var r = b.getBoundingClientRect();
              if (r.top < 0 || r.left < 0 || r.bottom > window.innerHeight + 1 || r.right > window.innerWidth + 1) {
                out.push(b.getAttribute('data-choice'));
              }
            });
            return out;""")
        check(outside == [], f"{name}: every choice inside the {self.size[0]}x{self.size[1]} window")

    def body(self):
        return self.driver.execute_script("return document.documentElement.outerHTML + document.body.innerText;")

    def quit(self):
        self.driver.quit()


STYLE_PROBE = """
var names = ['font-family', 'font-size', 'font-weight', 'font-style', 'color', 'background-color', 'border-top-width',
  'border-top-color', 'border-top-style', 'padding-top', 'padding-left', 'text-decoration-line', 'letter-spacing',
  'text-transform', 'outline-style', 'border-radius'];
return Array.prototype.map.call(document.querySelectorAll('#choices button'), function (b) {
  var s = getComputedStyle(b), r = b.getBoundingClientRect();
  return {id: b.getAttribute('data-choice'), current: b.getAttribute('aria-current'),
          style: names.map(function (n) { return s.getPropertyValue(n); }), width: Math.round(r.width),
          height: Math.round(r.height)};
});"""


# Whether the text box cuts anything: when its text is taller than the box, the box must scroll with a visible,
# wide scroll bar and show the "more text below" cue inside the box, and its last line must come into view when
# scrolled to the end (the box is scrolled back after).
CLIP_PROBE = """
var m = document.getElementById('message'), more = document.getElementById('more');
var cs = getComputedStyle(m), box = m.getBoundingClientRect();
var bar = m.offsetWidth - m.clientWidth - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth);
var r = more ? more.getBoundingClientRect() : null;
var cue = !!more && getComputedStyle(more).display !== 'none' && getComputedStyle(more).visibility === 'visible'
  && r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && more.textContent.trim().length > 0;
var texts = m.querySelectorAll('#title, #lines p, #items li, #entry');
var last = texts[texts.length - 1];
var result = {scrollHeight: m.scrollHeight, clientHeight: m.clientHeight, bar: bar, cue: cue,
  text: more ? more.textContent : null};
var saved = m.scrollTop;
m.scrollTop = m.scrollHeight;
var inner = m.getBoundingClientRect().top + m.clientTop + m.clientHeight;
result.lastReached = last.getBoundingClientRect().bottom <= inner + 1;
m.scrollTop = saved;
return result;"""


def nothing_cut(page, name):
    """The text box's text fits, or scrolls visibly: a scroll bar at least 20 px wide and the cue that more lies
    below; scrolled to the end, its last line shows."""
    clip = page.driver.execute_script(CLIP_PROBE)
    fits = clip["scrollHeight"] <= clip["clientHeight"] + 1
    check(fits or (clip["bar"] >= 20 and clip["cue"]),
          f"{name}: no text cut at {page.size[0]}x{page.size[1]} (fits, or a visible scroll bar and cue): {clip}")
    check(clip["lastReached"], f"{name}: the last line comes into view: {clip}")
    return clip


def large_screen(kiosk, artefacts):
    """The same page on a 1920x1080 screen: every choice in reach, no scrolling."""
    page = Page(f"http://{kiosk.web}/", artefacts, (1920, 1080))
    page.axe = load_axe()
    try:
        page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
        page.shot("idle")
        page.choose("session", then_title="My check-ins")
        page.shot("tap-your-card")
        page.choose("cancel-session")
        page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen again")
    finally:
        page.quit()


def browser_scenario(kiosk, artefacts):
    large_screen(kiosk, artefacts)
    page = Page(f"http://{kiosk.web}/", artefacts, (800, 480))
    page.axe = load_axe()
    try:
        page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
        page.shot("idle")
        page.choose("session", then_title="My check-ins")
        page.shot("tap-your-card")
        kiosk.run("tap", "--card", "1")
        page.wait_title("Your check-ins")
        page.shot("my-check-ins")
        text = page.driver.find_element(By.ID, "message").text
        check("This kiosk holds 3 stays for this card." in text, "the count of stays (UI-3)")
        # At 800x480 one stay a page (text no smaller than 5.1.4 asks): "Stay 1 of 3", then the next pages.
        check("Stay 1 of 3" in text and "previous-page" not in page.choice_ids(), "the first page of stays says so")
        listed = every_page(page, lambda: [li.text for li in page.driver.find_elements(By.CSS_SELECTOR, "#items li")])
        check(len(listed) == 3 and all("Friseur" in item for item in listed),
              f"every stay listed with its venue, page after page (UI-2): {listed}")
        check("Stay 3 of 3" in page.driver.find_element(By.ID, "message").text, "the last page says so")
        page.shot("my-check-ins-last-page")
        check(page.driver.execute_script("return document.documentElement.lang") == "en", "the page's language")

        page.choose("delete", then_title="Delete or block")
        page.shot("delete-or-block")
        page.choose("delete-one", then_title="Delete a stay")
        page.shot("delete-a-stay")
        # The oldest stay is on the last page.
        every_page(page, lambda: [])
        oldest = [c for c in page.choice_ids() if c.startswith("stay:")][-1]
        page.choose(oldest, then_title="Delete this stay?")
        page.shot("delete-this-stay")
        page.choose("delete", then_title="Your check-ins")
        check("This kiosk holds 2 stays for this card." in page.driver.find_element(By.ID, "message").text,
              "one stay deleted (UI-4)")

        page.choose("share", then_title="Share after a positive test")
        page.shot("share-select")
        labels = every_page(page, lambda: [b.text for b in page.driver.find_elements(By.CSS_SELECTOR, "#choices button")
                                           if b.get_attribute("data-choice").startswith("toggle:")])
        check(len(labels) == 2 and all(label.startswith("Not selected") for label in labels),
              f"nothing preselected (UI-8): {labels}")
        check(toggle_every_stay(page) == 2, "both stays selected, page after page")
        page.choose("continue", then_title="When did symptoms begin?")
        page.shot("symptoms")
        page.choose("week", then_title="How should the reports leave?")
        page.shot("output")
        page.choose("print", then_title="Before you decide")
        page.shot("disclosure")
        check("reveal who you are" in page.driver.find_element(By.ID, "message").text, "the disclosure first (UI-7)")
        nothing_cut(page, "disclosure")
        page.choose("continue", then_title="Share these reports?")
        page.shot("consent")
        clip = nothing_cut(page, "consent")
        print(f"consent preview at 800x480: {clip['scrollHeight']} px of text in a {clip['clientHeight']} px box, "
              f"scroll bar {clip['bar']} px, cue {'shown' if clip['cue'] else 'not needed'}")
        answers = page.driver.execute_script(STYLE_PROBE)
        check([a["id"] for a in answers] == ["yes", "no"], "yes and no are the choices")
        check(answers[0]["style"] == answers[1]["style"], f"identical computed style (UI-6): {answers}")
        check((answers[0]["width"], answers[0]["height"]) == (answers[1]["width"], answers[1]["height"]),
              "identical size (UI-6)")
        check(all(a["current"] is None for a in answers), "no default answer")
        preview = [li.text for li in page.driver.find_elements(By.CSS_SELECTOR, "#items li")]
        check(preview and "reports will leave this kiosk" in preview[0], f"the exact preview (UI-9): {preview}")
        reports = int(preview[0].split()[0])
        receipts_before = len(json.loads(kiosk.run("receipts", "--json").stdout))
        page.choose("yes", then_title="Your check-ins")
        page.shot("sent")
        receipts = json.loads(kiosk.run("receipts", "--json").stdout)
        check(len(receipts) == receipts_before + 1, "the receipt printed")
        opened = open_receipt(kiosk, receipts[-1]["png"])
        check(opened == reports and reports >= 2, f"the receipt opens into exactly the {reports} consented reports")

        # The card leaves: the session closes and nothing of it stays in the page.
        kiosk.run("remove")
        page.wait_for(lambda: page.title() != "Your check-ins", "the session to close")
        time.sleep(1)
        html = page.body()
        for word in VENUE_WORDS + ["stay", "exposure", "UTC"]:
            check(word not in html, f"no {word!r} in the DOM after the card left")
        page.shot("after-the-card-left")

        cross_origin(kiosk, page)
    finally:
        page.quit()


def cross_origin(kiosk, page):
    """A page from another origin posts a choice to the kiosk: refused (403), nothing changes."""
    evil = tempfile.mkdtemp()
    with open(os.path.join(evil, "index.html"), "w") as f:
        f.write(f"""<!DOCTYPE html><html lang="en"><body><script>
fetch("http://{kiosk.web}/choose/session", {{method: "POST", mode: "no-cors"}})
  .then(function () {{ document.title = "sent"; }}, function () {{ document.title = "failed"; }});
</script></body></html>""")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *arguments):
            pass

    handler = lambda *a, **k: Quiet(*a, directory=evil, **k)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        before = kiosk.screen()
        page.driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        page.wait_for(lambda: page.driver.title in ("sent", "failed"), "the foreign page's request")
        time.sleep(0.5)
        after = kiosk.screen()
        check(after["title"] == before["title"] and after["title"] != "My check-ins",
              "a page from another origin cannot choose anything")
    finally:
        server.shutdown()
        shutil.rmtree(evil)


# MARK: - The receipt, opened independently (docs/PROTOCOL.md §2–3)

BASE45 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"


def base45(text):
    values = [BASE45.index(c) for c in text]
    out = bytearray()
    for i in range(0, len(values), 3):
        chunk = values[i:i + 3]
        if len(chunk) == 3:
            n = chunk[0] + chunk[1] * 45 + chunk[2] * 45 * 45
            out += bytes([n >> 8, n & 0xFF])
        else:
            out.append(chunk[0] + chunk[1] * 45)
    return bytes(out)


def receipt_codes(png):
    """The receipt's CKPB/1 QR codes, as scanned (zbarimg)."""
    codes = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True).stdout.splitlines()
    return [code for code in codes if code.startswith("CKPB1:")]


def open_receipt(kiosk, png):
    """How many records of the receipt's CKPB/1 batches open under the venue's location id."""
    batches = [base45(code[len("CKPB1:"):]) for code in receipt_codes(png)]
    check(batches, "the receipt's QR codes are CKPB/1 batches")
    decoded = json.loads(subprocess.run([kiosk.binary, "decode", VENUE, "--json"], capture_output=True,
                                        text=True).stdout)
    location = bytes.fromhex(decoded["codes"][0]["locationIdHex"])
    okm = HKDF(algorithm=hashes.SHA256(), length=80, salt=b"CKPR/1", info=b"presence-record").derive(location)
    k_enc, k_mac, k_tag = okm[:16], okm[16:48], okm[48:80]
    today = int(time.time()) // 86400
    tags = {hmac.new(k_tag, b"day" + (today + d).to_bytes(4, "big"), hashlib.sha256).digest()[:16]: today + d
            for d in range(-15, 30)}
    opened = 0
    for batch in batches:
        check(batch[:5] == b"CKPB\x01", "a CKPB/1 header")
        count = int.from_bytes(batch[6:8], "big")
        check(count % 8 == 0 and len(batch) == 8 + 74 * count, "padded to a multiple of 8 records")
        for i in range(count):
            record = batch[8 + 74 * i: 8 + 74 * (i + 1)]
            tag, iv, ciphertext, mac = record[:16], record[16:32], record[32:42], record[42:]
            if tag not in tags:
                continue
            expected = hmac.new(k_mac, tag + iv + ciphertext, hashlib.sha256).digest()
            if not hmac.compare_digest(expected, mac):
                continue
            plain = Cipher(algorithms.AES(k_enc), modes.CTR(iv)).decryptor().update(ciphertext)
            check(plain[0] == 1 and 1 <= plain[7] <= 8, "a valid CKPR/1 plaintext")
            opened += 1
    return opened


# MARK: - Two buttons only

def press_to(kiosk, choice_id):
    for _ in range(80):
        screen = kiosk.screen()
        selected = screen.get("selected")
        if selected is not None and screen["choices"][selected]["id"] == choice_id:
            kiosk.run("button", "choose")
            return
        check(any(c["id"] == choice_id for c in screen["choices"]), f"{choice_id} offered on {screen['title']!r}")
        kiosk.run("button", "next")
    raise Failed(f"the buttons never reached {choice_id}")


def buttons_scenario(kiosk):
    kiosk.run("advance", "30m")
    press_to(kiosk, "session")
    kiosk.run("tap", "--card", "1")
    check(kiosk.screen()["title"] == "Your check-ins", "buttons: the session opened")
    press_to(kiosk, "share")
    # Two stays selected with the buttons, a page of stays after the other ("Next page" is a choice like any).
    toggled = 0
    while toggled < 2:
        for toggle in [c["id"] for c in kiosk.screen()["choices"] if c["id"].startswith("toggle:")][:2 - toggled]:
            press_to(kiosk, toggle)
            toggled += 1
        if toggled < 2:
            press_to(kiosk, "next-page")
    press_to(kiosk, "continue")
    press_to(kiosk, "symptoms")
    press_to(kiosk, "print")
    press_to(kiosk, "continue")
    consent = kiosk.screen()
    check(consent["title"] == "Share these reports?" and consent.get("selected") is None,
          "buttons: consent with nothing selected")
    printed = len(json.loads(kiosk.run("receipts", "--json").stdout))
    press_to(kiosk, "yes")
    after = len(json.loads(kiosk.run("receipts", "--json").stdout))
    check(after == printed + 1, "buttons: shared and printed")
    press_to(kiosk, "done")
    check(not kiosk.screen()["isPrivate"], "buttons: the session closed")
    kiosk.run("remove")


# MARK: - Accessibility: axe-core (WCAG 2.1 A/AA), contrast 7:1, lang, both screen sizes, every language

# axe-core 4.12.1, as PyPI's axe-playwright-python 0.1.8 wheel bundles it (pinned by the wheel's sha256).
AXE_WHEEL = ("axe-playwright-python==0.1.8",
             "fdd263c998388f1a8e67cad02677e612d946248bd44d163be5e8650ea31f95f8")


def load_axe():
    """axe-core's script, downloaded once with pip (hash-checked) and cached per user."""
    import zipfile
    cache = os.path.join(os.path.expanduser("~"), ".cache", "kiosk", "axe-4.12.1.min.js")
    if os.path.exists(cache) and os.path.getsize(cache) > 100_000:
        return open(cache, encoding="utf-8").read()
    work = tempfile.mkdtemp(prefix="kiosk-axe-")
    try:
        requirements = os.path.join(work, "requirements.txt")
        with open(requirements, "w") as out:
            out.write(f"{AXE_WHEEL[0]} --hash=sha256:{AXE_WHEEL[1]}\n")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--require-hashes",
                        "-q", "-d", work, "-r", requirements], check=True, timeout=300)
        wheel = next(os.path.join(work, n) for n in os.listdir(work) if n.endswith(".whl"))
        with zipfile.ZipFile(wheel) as archive:
            member = next(n for n in archive.namelist() if n.endswith("axe.min.js"))
            script = archive.read(member).decode("utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    check(script.startswith("/*! axe v4."), "axe-core 4 from the pinned wheel")
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache, "w", encoding="utf-8") as out:
        out.write(script)
    return script


CONTRAST_PROBE = """
function lum(c) {
  var m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
  var p = m[1].split(',').map(function (x) { return parseFloat(x); });
  if (p.length > 3 && p[3] === 0) return null;
  var ch = p.slice(0, 3).map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}
function background(e) {
  for (; e; e = e.parentElement) { var l = lum(getComputedStyle(e).backgroundColor); if (l !== null) return l; }
  return 1;
}
var worst = [];
document.querySelectorAll('body *').forEach(function (e) {
  var own = Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
  if (!own || e.getClientRects().length === 0) return;
  var f = lum(getComputedStyle(e).color), b = background(e);
  var ratio = (Math.max(f, b) + 0.05) / (Math.min(f, b) + 0.05);
  if (ratio < 7) worst.push(e.tagName + '#' + e.id + ' ' + ratio.toFixed(2) + ': ' + e.textContent.trim().slice(0, 40));
});
return worst;"""


# The panel the kiosk's text is sized for: its defaults (docs/configuration.md, `screen.*`), a 7-inch 800x480 panel
# read at 40 cm. EN 301 549 5.1.4: a capital H subtends at least 0.7 degrees there.
PANEL_PIXELS, PANEL_DIAGONAL_MM, VIEWING_DISTANCE_MM = (800, 480), 178, 400


def minimum_capital_height():
    """The clause's smallest capital H on the panel, in its pixels."""
    pitch = PANEL_DIAGONAL_MM / math.hypot(*PANEL_PIXELS)
    return 2 * VIEWING_DISTANCE_MM * math.tan(math.radians(0.7 / 2)) / pitch


# Every visible element with text of its own (letters): the height of a capital H in its computed font, as the
# browser draws it (canvas measureText of "H" in that font); the smallest comes back with the ones below `minimum`.
TEXT_SIZE_PROBE = """
var minimum = arguments[0], ctx = document.createElement('canvas').getContext('2d');
var small = [], least = null;
document.querySelectorAll('body *').forEach(function (e) {
  var own = Array.prototype.filter.call(e.childNodes, function (n) { return n.nodeType === 3; })
    .map(function (n) { return n.textContent; }).join('');
  if (!/\\p{L}/u.test(own) || e.getClientRects().length === 0) return;
  var s = getComputedStyle(e);
  if (s.visibility !== 'visible' || s.display === 'none') return;
  ctx.font = s.fontStyle + ' ' + s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;
  var m = ctx.measureText('H'), h = m.actualBoundingBoxAscent + m.actualBoundingBoxDescent;
  if (least === null || h < least.height) least = {height: h, text: own.trim().slice(0, 40), font: ctx.font};
  if (h + 0.01 < minimum) small.push(e.tagName + '#' + e.id + ' ' + h.toFixed(1) + ' px: ' + own.trim().slice(0, 40));
});
return {small: small, least: least};"""

# A date written with no-break spaces ("Sonntag, 29. November") and a time or a range of times ("10:55-11:45", word
# joiners around the dash) must each stay on one line: every such run's client rectangles share one line.
BREAK_PROBE = """
var broken = [], pattern = /(?:[\\p{L}\\d.,]+(?:\\u00a0[\\p{L}\\d.,]+)+)|(?:\\d{1,2}[:.h]\\d{2}(?:\\u2060?[\\u2013-]\\u2060?\\d{1,2}[:.h]\\d{2})?)/gu;
var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (var node = walker.nextNode(); node; node = walker.nextNode()) {
  if (!node.parentElement || node.parentElement.getClientRects().length === 0) continue;
  var text = node.textContent, match;
  pattern.lastIndex = 0;
  while ((match = pattern.exec(text)) !== null) {
    var range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    var tops = Array.prototype.map.call(range.getClientRects(), function (r) { return Math.round(r.top); })
      .filter(function (t, i, all) { return all.indexOf(t) === i; });
    if (tops.length > 1) broken.push(match[0]);
  }
}
return broken;"""


def readable(page, name):
    """Every visible text at least the clause's size on the panel, and no date or time broken across lines."""
    minimum = minimum_capital_height()
    sizes = page.driver.execute_script(TEXT_SIZE_PROBE, minimum)
    check(sizes["small"] == [], f"{name}: every text's capital H at least {minimum:.1f} px (0.7 degrees at 40 cm on a "
          f"7-inch 800x480 panel): {sizes['small']}")
    page.smallest = min(page.smallest, sizes["least"]["height"]) if sizes["least"] else page.smallest
    broken = page.driver.execute_script(BREAK_PROBE)
    check(broken == [], f"{name}: no date or time broken across lines: {broken}")


def audit(page, axe, name):
    """The view audited (accessible()) and its screenshot."""
    page.axe = axe
    page.shot(name)


def accessible(page, name):
    """axe-core's WCAG 2.1 A and AA rules and text contrast of at least 7:1 on the view shown now."""
    # axe-core is put into the page once: the page draws every view into the same document.
    if page.driver.execute_script("return typeof axe === 'undefined'"):
        page.driver.execute_script(page.axe)
    result = page.driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
          .then(function (r) { done(r.violations.map(function (v) { return v.id + ': ' + v.help; })); })
          .catch(function (e) { done(['axe failed: ' + e]); });""")
    check(result == [], f"{name}: no WCAG 2.1 A/AA violation (axe-core): {result}")
    low = page.driver.execute_script(CONTRAST_PROBE)
    check(low == [], f"{name}: every text at least 7:1 against its background: {low}")
    # Every choice's words inside its button (text running out of a white button is black on black).
    cut = page.driver.execute_script(
        "return Array.from(document.querySelectorAll('#choices button')).filter(function (b) {"
        " return b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1; })"
        ".map(function (b) { return b.textContent; });")
    check(cut == [], f"{name}: every choice's words inside its button: {cut}")
    readable(page, name)
    nothing_cut(page, name)


def accessibility(kiosk, artefacts):
    axe = load_axe()
    for size in ((800, 480), (1920, 1080)):
        page = Page(f"http://{kiosk.web}/", artefacts, size)
        try:
            # The contrast probe finds what it looks for: a grey on grey paragraph is reported.
            page.wait_for(lambda: "language" in page.choice_ids(), "the idle screen")
            low = page.driver.execute_script(
                "var p = document.createElement('p'); p.id = 'probe'; p.textContent = 'grey';"
                "p.style.color = '#777'; p.style.background = '#888'; document.body.appendChild(p);"
                + CONTRAST_PROBE.replace("return worst;", "p.remove(); return worst;"))
            check(any("P#probe" in item for item in low), "the contrast probe reports low contrast")
            # The size and break probes find what they look for: small text, and a date split over two lines.
            page.driver.execute_script(
                "var p = document.createElement('p'); p.id = 'probe'; p.style.fontSize = '14px';"
                "p.style.width = '3em'; p.style.wordBreak = 'break-all'; p.textContent = 'Sonntag,\\u00a029.\\u00a0November 10:55'; document.body.appendChild(p);")
            small = page.driver.execute_script(TEXT_SIZE_PROBE, minimum_capital_height())["small"]
            broken = page.driver.execute_script(BREAK_PROBE)
            page.driver.execute_script("document.getElementById('probe').remove();")
            check(any("P#probe" in item for item in small), f"the size probe reports 14 px text: {small}")
            check(any("November" in item for item in broken), f"the break probe reports a broken date: {broken}")
            for language in ("en", "de", "fr", "it"):
                page.wait_for(lambda: "language" in page.choice_ids(), "the idle screen")
                page.choose("language")
                page.wait_for(lambda: f"language:{language}" in page.choice_ids(), "the languages")
                audit(page, axe, f"{language}-languages")
                page.choose(f"language:{language}")
                page.wait_for(lambda: page.lang() == language, f"the page in {language}")
                audit(page, axe, f"{language}-idle")
                page.choose("session")
                page.wait_for(lambda: "cancel-session" in page.choice_ids(), "the prompt for a card")
                audit(page, axe, f"{language}-tap-your-card")
                # Its last 20 seconds (of 45): the time running out and "More time".
                kiosk.run("advance", "25s")
                page.wait_for(lambda: "more-time" in page.choice_ids(), "the prompt's last 20 seconds")
                audit(page, axe, f"{language}-time-running-out")
                page.choose("more-time")
                page.wait_for(lambda: page.choice_ids() == ["cancel-session"], "the prompt with its time again")
                kiosk.run("tap", "--card", "1")
                page.wait_for(lambda: "settings" in page.choice_ids(), "the session")
                check(page.lang() == language, f"{language}: the session's page says its language")
                audit(page, axe, f"{language}-my-check-ins")
                page.choose("settings")
                page.wait_for(lambda: "always-speak" in page.choice_ids(), "the settings")
                audit(page, axe, f"{language}-settings")
                page.choose("back")
                page.wait_for(lambda: "share" in page.choice_ids(), "the session again")
                # The stays' pages.
                if "next-page" in page.choice_ids():
                    page.choose("next-page")
                    audit(page, axe, f"{language}-my-check-ins-next-page")
                    page.choose("previous-page")
                # Deleting and blocking, up to each question; each starts on the safe answer, kept.
                page.choose("delete")
                page.wait_for(lambda: "delete-one" in page.choice_ids(), "deleting or blocking")
                audit(page, axe, f"{language}-delete-or-block")
                page.choose("delete-one")
                page.wait_for(lambda: any(c.startswith("stay:") for c in page.choice_ids()), "the stays to delete")
                audit(page, axe, f"{language}-delete-a-stay")
                page.choose([c for c in page.choice_ids() if c.startswith("stay:")][-1])
                page.wait_for(lambda: page.choice_ids() == ["keep", "delete"], "the question before deleting")
                check(page.current() == "keep", f"{language}: deleting starts on the safe answer")
                audit(page, axe, f"{language}-delete-this-stay")
                page.choose("keep")
                page.wait_for(lambda: "share" in page.choice_ids(), "the session again")
                for question, answer in (("delete-all", "delete"), ("block", "block")):
                    page.choose("delete")
                    page.wait_for(lambda: question in page.choice_ids(), "deleting or blocking")
                    page.choose(question)
                    page.wait_for(lambda: page.choice_ids() == ["keep", answer], f"the question before {question}")
                    check(page.current() == "keep", f"{language}: {question} starts on the safe answer")
                    audit(page, axe, f"{language}-{question}-question")
                    page.choose("keep")
                    page.wait_for(lambda: "share" in page.choice_ids(), "the session again")
                sharing(kiosk, page, axe, language)
                kiosk.run("remove")
                page.wait_for(lambda: "settings" not in page.choice_ids(), "the session closed")
                # The PIN keypad of card 2, in this language (card 1's holder has left: card 2's chooses it).
                page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
                choose_language(page, language)
                page.choose("session")
                page.wait_for(lambda: "cancel-session" in page.choice_ids(), "the prompt for a card")
                kiosk.run("tap", "--card", "2")
                page.wait_for(lambda: "key:ok" in page.choice_ids(), "the PIN keypad")
                audit(page, axe, f"{language}-pin-keypad")
                kiosk.run("remove")
                page.wait_for(lambda: "key:ok" not in page.choice_ids(), "the keypad closed")
                warning(kiosk, page, axe, language)
                staff(kiosk, page, axe, language)
                speech_settings(kiosk, page, axe, language)
            print(f"smallest capital H drawn at {size[0]}x{size[1]}: {page.smallest:.1f} px "
                  f"(at least {minimum_capital_height():.1f} px)")
        finally:
            page.quit()


def every_page(page, collect):
    """What `collect` finds on each page of a list of stays, from the page shown to the last (next page after next
    page)."""
    found = collect()
    while "next-page" in page.choice_ids():
        page.choose("next-page")
        found += collect()
    return found


def toggle_every_stay(page):
    """Each stay of the share list selected, page after page (from the first): each toggle's label changes (marked
    selected); returns how many."""
    while "previous-page" in page.choice_ids():
        page.choose("previous-page")
    count = 0
    while True:
        for toggle in [c for c in page.choice_ids() if c.startswith("toggle:")]:
            before = page.driver.find_element(By.CSS_SELECTOR, f'button[data-choice="{toggle}"]').text
            page.choose(toggle)
            after = page.driver.find_element(By.CSS_SELECTOR, f'button[data-choice="{toggle}"]').text
            check(after != before, f"the stay is marked selected: {after!r}")
            count += 1
        if "next-page" not in page.choice_ids():
            return count
        page.choose("next-page")


def sharing(kiosk, page, axe, language):
    """Every view of sharing up to the consent question, in `language`; answered no: nothing printed."""
    page.choose("share")
    page.wait_for(lambda: "continue" in page.choice_ids(), "the stays to share")
    audit(page, axe, f"{language}-share-select")
    check(toggle_every_stay(page) == 2, f"{language}: two stays to share, both selected")
    audit(page, axe, f"{language}-share-selected")
    page.choose("continue")
    page.wait_for(lambda: "week" in page.choice_ids(), "the symptoms question")
    audit(page, axe, f"{language}-symptoms")
    page.choose("week")
    page.wait_for(lambda: "print" in page.choice_ids(), "the choice of output")
    audit(page, axe, f"{language}-output")
    page.choose("print")
    page.wait_for(lambda: page.choice_ids() == ["continue", "cancel"], "the disclosure")
    audit(page, axe, f"{language}-disclosure")
    nothing_cut(page, f"{language}-disclosure")
    page.choose("continue")
    page.wait_for(lambda: page.choice_ids() == ["yes", "no"], "the consent question")
    check(page.lang() == language, f"{language}: the consent question's page says its language")
    audit(page, axe, f"{language}-consent")
    nothing_cut(page, f"{language}-consent")
    printed = len(json.loads(kiosk.run("receipts", "--json").stdout))
    page.choose("no")
    page.wait_for(lambda: "done" in page.choice_ids(), "the session again")
    check(len(json.loads(kiosk.run("receipts", "--json").stdout)) == printed, f"{language}: no, and nothing printed")


def warning(kiosk, page, axe, language):
    """Card 3's warning in `language`: the public line at its tap, then, in its session, the warning itself."""
    page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
    choose_language(page, language)
    kiosk.run("advance", "1m")
    kiosk.run("tap", "--card", "3")
    page.wait_for(lambda: page.kind() == "warning" and "session" in page.choice_ids(), "the news at the tap")
    audit(page, axe, f"{language}-news-at-the-tap")
    # The card still on the reader: "My check-ins" opens its session.
    page.choose("session")
    page.wait_for(lambda: "warning" in page.choice_ids(), "the session with a warning")
    check(page.lang() == language, f"{language}: the warned session's page says its language")
    audit(page, axe, f"{language}-my-check-ins-warned")
    page.choose("warning")
    page.wait_for(lambda: "print-slip" in page.choice_ids(), "the warning")
    check(page.kind() == "warning", f"{language}: the warning in its colours")
    audit(page, axe, f"{language}-warning")
    page.choose("back")
    page.wait_for(lambda: "warning" in page.choice_ids(), "the session again")
    kiosk.run("remove")
    page.wait_for(lambda: "warning" not in page.choice_ids(), "the session closed")


# Blank cards for the enrolments of the accessibility views (cards 1-3 are the scenario's).
NEW_CARDS = itertools.count(11)


def choose_language(page, language):
    """A new person chooses their language on the idle screen: it lasts until they leave (their card leaves the
    reader, "Done", time, another card), so each person here chooses it."""
    page.wait_for(lambda: "language" in page.choice_ids(), "the idle screen")
    page.choose("language")
    page.wait_for(lambda: f"language:{language}" in page.choice_ids(), "the languages")
    page.choose(f"language:{language}")
    page.wait_for(lambda: page.lang() == language, f"the page in {language}")


def staff(kiosk, page, axe, language):
    """Staff mode opened after a visitor chose `language`: the menu, the prompts to bind and to enrol, and a new
    card's questions to its holder."""
    page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
    choose_language(page, language)
    kiosk.run("staff")
    page.wait_for(lambda: "staff:bind" in page.choice_ids(), "the staff menu")
    check(page.lang() == language, f"{language}: staff mode in the language chosen last")
    check(page.choice_ids()[-1] == "staff:leave", f"{language}: the menu's entries are choices, leaving last")
    audit(page, axe, f"{language}-staff-menu")
    menu = page.title()
    # The menu's second page.
    page.choose("staff:more")
    page.wait_for(lambda: "staff:wipe" in page.choice_ids(), "the staff menu's second page")
    audit(page, axe, f"{language}-staff-menu-more")
    page.choose("staff:back")
    page.wait_for(lambda: "staff:bind" in page.choice_ids(), "the staff menu's first page")
    # The menu's entries are chosen on the screen.
    for entry in ("bind", "enrol"):
        page.choose(f"staff:{entry}")
        page.wait_for(lambda: page.title() != menu, f"the staff prompt ({entry})")
        audit(page, axe, f"{language}-staff-{entry}")
        page.choose("cancel", then_title=menu)
    # A new card's holder answers on the screen: may the kiosk match their stays, and a PIN.
    kiosk.run("enrol", "--card", str(next(NEW_CARDS)))
    page.wait_for(lambda: page.choice_ids() == ["yes", "no", "language"], "the question of matching")
    audit(page, axe, f"{language}-enrolment-matching")
    # The holder may choose their language before answering (here the one already shown).
    page.choose("language")
    page.wait_for(lambda: f"language:{language}" in page.choice_ids(), "the languages at enrolment")
    audit(page, axe, f"{language}-enrolment-language")
    page.choose(f"language:{language}")
    page.wait_for(lambda: page.choice_ids() == ["yes", "no", "language"], "the question of matching again")
    page.choose("yes")
    page.wait_for(lambda: page.choice_ids() == ["set-pin", "no-pin"], "the offer of a PIN")
    audit(page, axe, f"{language}-enrolment-pin-offer")
    page.choose("no-pin")
    page.wait_for(lambda: "yes" not in page.choice_ids() and "no-pin" not in page.choice_ids(), "the answers saved")
    kiosk.run("staff-menu", "leave")
    page.wait_for(lambda: "session" in page.choice_ids(), "staff mode closed")
    kiosk.run("staff")
    page.wait_for(lambda: "staff:leave" in page.choice_ids(), "the staff menu")
    page.choose("staff:leave")
    page.wait_for(lambda: "session" in page.choice_ids(), "staff mode left from the screen")
    # The idle screen again, its message gone.
    kiosk.run("advance", "15s")
    page.wait_for(lambda: page.kind() == "idle", "the idle screen")


def speech_settings(kiosk, page, axe, language):
    """A button held: the screen is spoken and ends with the speech settings; they are audited in `language`, made
    louder and slower, and left; left alone, the kiosk stops speaking (the next person hears the venue's voice)."""
    page.wait_for(lambda: "session" in page.choice_ids(), "the idle screen")
    choose_language(page, language)
    kiosk.run("button", "hold")
    page.wait_for(lambda: page.choice_ids()[-1:] == ["speech-settings"], "the speech settings offered last")
    page.choose("speech-settings")
    page.wait_for(lambda: "speech-louder" in page.choice_ids(), "the speech settings")
    check(page.lang() == language, f"{language}: the speech settings' page says its language")
    audit(page, axe, f"{language}-speech-settings")
    before = page.driver.find_element(By.ID, "message").text
    page.choose("speech-louder")
    page.choose("speech-slower")
    page.wait_for(lambda: page.driver.find_element(By.ID, "message").text != before, "the new volume and speed shown")
    page.choose("speech-back")
    page.wait_for(lambda: "speech-louder" not in page.choice_ids(), "the screen under the settings")
    kiosk.run("advance", "3m")
    page.wait_for(lambda: "speech-settings" not in page.choice_ids(), "speech ended, left alone")


def main():
    binary, artefacts = sys.argv[1], sys.argv[2]
    os.makedirs(artefacts, exist_ok=True)
    state = tempfile.mkdtemp(prefix="kiosk-browser-")
    # The health authority (kiosk-authority, built next to kiosk): the kiosk trusts its key and, offline, takes its
    # packages from a USB stick.
    authority = os.path.join(os.path.dirname(binary), "kiosk-authority")
    office = tempfile.mkdtemp(prefix="kiosk-authority-")
    directory = os.path.join(office, "authority")
    try:
        key = authority_key(authority, directory)
    except Failed as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        sys.exit(1)
    config = os.path.join(office, "kiosk.json")
    with open(config, "w") as out:
        json.dump({"warnings": {"baseURL": "http://127.0.0.1:9/warnings", "publicKey": key}}, out)
    kiosk = Kiosk(binary, state, config)
    try:
        set_up(kiosk)
        browser_scenario(kiosk, artefacts)
        buttons_scenario(kiosk)
        warned(kiosk, authority, directory)
        accessibility(kiosk, artefacts)
    except Failed as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        kiosk.stop()
        print(open(os.path.join(state, "kiosk.log")).read()[-3000:], file=sys.stderr)
        sys.exit(1)
    kiosk.stop()
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(office, ignore_errors=True)
    print(f"visitor session: every check passed; screenshots in {artefacts}")


if __name__ == "__main__":
    main()
