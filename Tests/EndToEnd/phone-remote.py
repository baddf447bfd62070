"""The phone remote end to end, on real parts: a running Multiscreen (started by scripts/remote-e2e under
headless sway with `--remote`), its external screen read with grim, the QR code decoded with zbarimg, the page
driven in headless Chromium through Selenium, the message read back off the screen with tesseract.

Usage: /usr/bin/python3 phone-remote.py OUTPUT SOCKET BINARY   (WAYLAND_DISPLAY and XDG_RUNTIME_DIR set for grim;
SOCKET and BINARY: the kiosk's control socket and the multiscreen that reads its status)
"""
import json
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

OUTPUT = sys.argv[1]
SOCKET = sys.argv[2]
BINARY = sys.argv[3]
SHOT = tempfile.mktemp(suffix=".png")
checks = {"passed": 0, "failed": 0}


def check(condition, what):
    checks["passed" if condition else "failed"] += 1
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        raise SystemExit(finish())


def finish():
    print(f"{checks['passed']} passed, {checks['failed']} failed", flush=True)
    return 0 if checks["failed"] == 0 else 1


def screenshot():
    subprocess.run(["grim", "-o", OUTPUT, SHOT], check=True)
    return SHOT


def qr_on_screen():
    result = subprocess.run(["zbarimg", "-q", "--raw", screenshot()], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    check(False, what + f" (within {seconds} s)")


def controller_active():
    result = subprocess.run([BINARY, "status", "--json", "--socket", SOCKET], capture_output=True, text=True)
    return json.loads(result.stdout)["remote"]["controllerActive"] if result.returncode == 0 else None


def text_on_screen():
    result = subprocess.run(["tesseract", screenshot(), "-", "--psm", "6"], capture_output=True, text=True)
    return result.stdout


def browser(javascript=True):
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=412,915"]:
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def status(driver):
    # A form post (Release, Take control) navigates: the element found just before can go stale, or not exist yet,
    # while the next page loads; Chrome also reports a node detached mid-read as a plain WebDriverException ("Node
    # with given id does not belong to the document"). That is "no status yet", and the wait asks again.
    try:
        return driver.find_element(By.ID, "status").text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return ""
        raise


def socket_open(driver):
    # The page's script keeps the socket private; a Send through it clears the box without reloading the page.
    return driver.execute_script("return document.readyState") == "complete"


first = browser()
second = browser()
plain = browser(javascript=False)
try:
    url = wait_for(qr_on_screen, 20, "a QR code on the external screen")
    check(url.startswith("http://127.0.0.1:") and "?code=" in url, f"the QR code is the remote's link: {url}")

    # A link-preview robot (a chat app unfurling the link) fetches it without running scripts: no code is spent.
    with urllib.request.urlopen(url, timeout=10) as preview:
        page = preview.read().decode()
        check(preview.headers.get("Set-Cookie") is None and 'id="claim"' in page,
              "a plain GET of the link (a preview robot) gets the claim form and no session")
    check(controller_active() == 0, "the preview robot's GET claimed nothing")

    # The page's script posts the link's code at once: the phone is in control without a tap.
    first.get(url)
    WebDriverWait(first, 10).until(lambda d: status(d) == "You are in control.")
    check(True, "the first phone takes control with the scanned link (its page posted the code)")
    check(first.current_url.endswith("/"), "the script took the spent code out of the address bar")
    wait_for(lambda: qr_on_screen() is None, 10, "the QR code hides while someone is in control")

    first.find_element(By.ID, "text").send_keys("Phone one says hello")
    time.sleep(0.5)  # the WebSocket opens on load; without it the form posts, which works as well
    first.find_element(By.CSS_SELECTOR, "#send button").click()
    # Acknowledged twice: accepted ("Sent (message N)."), then shown, with the number of screens showing it: the
    # external screen and the controller's log.
    WebDriverWait(first, 10).until(lambda d: status(d).endswith("shown on 2 screens."))
    check(True, f"the page says where the message was shown: {status(first)!r}")
    wait_for(lambda: "Phone one says hello" in text_on_screen(), 15, "the message is on the external screen")
    check(True, "the message is on the external screen (OCR)")

    # After --remote-hold seconds a fresh code is shown; a second phone claims it and the first is superseded.
    newer = wait_for(qr_on_screen, 20, "a fresh QR code after the hold time")
    check(newer != url, "the fresh code differs from the spent one")
    second.get(newer)
    WebDriverWait(second, 10).until(lambda d: status(d) == "You are in control.")
    check(True, "the second phone takes control")
    WebDriverWait(first, 10).until(lambda d: status(d) == "Another phone took control.")
    check(True, "the first phone is told it was superseded")
    check(not first.find_element(By.CSS_SELECTOR, "#send button").is_enabled(), "the first phone's Send is off")

    first.get(url)
    WebDriverWait(first, 10).until(lambda d: "already used" in status(d))
    check(True, f"the spent link is refused: {status(first)!r}")

    second.find_element(By.CSS_SELECTOR, "#release button").click()
    WebDriverWait(second, 10).until(lambda d: status(d) == "You released control.")
    check(True, "the second phone releases control")
    after = wait_for(qr_on_screen, 10, "the QR code back after release")
    check(after not in (url, newer), "a new code after release")

    # Closing the page (here: leaving it) releases control once the grace has passed; the QR code comes back.
    first.get(after)
    WebDriverWait(first, 10).until(lambda d: status(d) == "You are in control.")
    check(True, "the first phone takes control again")
    wait_for(lambda: qr_on_screen() is None, 10, "the QR code hides again")
    first.get("about:blank")
    # --remote-hold can bring a fresh code back before the closed page's grace is over: wait for the release.
    wait_for(lambda: controller_active() == 0, 20, "control released after the page closed")
    last = wait_for(qr_on_screen, 20, "the QR code back after the page closed")
    check(last not in (url, newer, after), "a new code after the page closed")

    # Without JavaScript: the plain form post, and its receipt on a page that refreshes itself until the screens
    # have shown the message.
    # Without JavaScript the link's page is the claim with a Take control button: one tap.
    plain.get(last)
    check("?code=" in plain.current_url, "no script ran (it would have posted the code at once)")
    check(controller_active() == 0, "opening the link without JavaScript claims nothing before the tap")
    plain.find_element(By.CSS_SELECTOR, "#claim button").click()
    WebDriverWait(plain, 10).until(lambda d: status(d) == "You are in control.")
    check(True, "a phone without JavaScript takes control with one tap")
    plain.find_element(By.ID, "text").send_keys("Plain form hello")
    plain.find_element(By.CSS_SELECTOR, "#send button").click()
    WebDriverWait(plain, 10).until(lambda d: status(d).startswith("Sent (message ") or "shown on" in status(d))
    accepted = status(plain)
    check(True, f"the form post is acknowledged with the message's id: {accepted!r}")
    WebDriverWait(plain, 15).until(lambda d: status(d).endswith("shown on 2 screens."))
    check("/receipt?id=" in plain.current_url, f"the page refreshed itself to the receipt: {status(plain)!r}")
    wait_for(lambda: "Plain form hello" in text_on_screen(), 15, "the form's message on the external screen")
    check(True, "the form's message is on the external screen (OCR)")
    # The receipt page reloads itself for a few seconds after the send; a click during a reload lands on a page
    # that is going away. Release once the page no longer asks to be reloaded.
    WebDriverWait(plain, 15, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]'))
    plain.find_element(By.CSS_SELECTOR, "#release button").click()
    WebDriverWait(plain, 10).until(lambda d: status(d) == "You released control.")
    check(True, "the phone without JavaScript releases control")
finally:
    first.quit()
    second.quit()
    plain.quit()

sys.exit(finish())
