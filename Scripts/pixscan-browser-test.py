#!/usr/bin/env python3
"""PixScan's page in real headless Chromium, driven by Selenium (run by pixscan-browser-test.sh).

Usage: pixscan-browser-test.py URL FOLDER TRASH SHOTS   (URL with its #token=...)

Desktop (1200 x 1000): skips the tutorial, triages FOLDER (made by the shell script: the sample
photos, two screenshots, a receipt) by keyboard and by a touch swipe, reloads and checks that it
resumes at the same photo (and that the tutorial stays shown once), uses the screenshots filter,
undoes, empties the delete queue into TRASH (the freedesktop trash under a temporary
XDG_DATA_HOME) after a confirmation, recognises the receipt's text and exports it as .txt, finds
a photo copied in by a rescan (a JPEG with an EXIF DateTimeOriginal) and enlarges it from the
queue: its date is the one it was taken.

Phone (Chromium mobile emulation, 390 x 844, touch events sent through the DevTools protocol,
Input.dispatchTouchEvent): Start over shows the tutorial again, which is performed by touch;
swipes in four directions, double-tap undo, long-press viewer with pinch zoom and clamped pan,
drags that must not triage, vertical page scrolling that must not triage (turned to landscape,
844 x 390, where the page is taller than the screen), a photo without EXIF enlarged with its
file time, a subset of the queue moved after a confirmation, a text shared or
downloaded, and no horizontal scrolling.

Both profiles always run. Saves a PNG of each state in SHOTS (desktop NN-*.png, phone
phone-NN-*.png). Prints one line per check, a line `pixscan-browser profiles: desktop N passed,
M failed in S s; phone N passed, M failed in S s` and a last line `pixscan-browser: N passed, M failed`; exits 1
when a check failed.
"""

import os
import shutil
import sys
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

URL, FOLDER, TRASH, SHOTS = sys.argv[1:5]
# The JPEG with an EXIF date (DateTimeOriginal 2019:07:14 09:26:53) that PixScan's tests use.
EXIF_PHOTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Examples", "PixScan",
                          "Tests", "PixScanTests", "Resources", "exif-date.jpg")
if "#token=" not in URL or not URL.split("#token=", 1)[1]:
    sys.exit(f"pixscan-browser-test: the URL has no #token=: {URL}")
TOKEN = URL.split("#token=", 1)[1]
DOWNLOADS = os.path.join(SHOTS, "downloads")
passed, failed = 0, 0


def check(name, condition):
    global passed, failed
    if condition:
        passed += 1
        print(f"  ok   {name}")
    else:
        failed += 1
        print(f"  FAIL {name}")


def shot(driver, name):
    path = os.path.join(SHOTS, f"{name}.png")
    driver.save_screenshot(path)
    print(f"  shot {path}")


def click(driver, selector):
    """Clicks the element `selector` finds, finding it again if the page re-rendered it meanwhile
    (the open queue panel is rebuilt by the page's poll every second)."""
    for attempt in range(5):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise
            time.sleep(0.1)


def card(driver):
    return driver.find_element(By.ID, "card").get_attribute("data-path") or ""


def wait_for(driver, condition, what, timeout=20):
    # A list the page rebuilds (replaceChildren) can turn an element found by one poll stale
    # before its text is read: that poll counts as "not yet", not as a failure of the wait.
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1,
                      ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
        return True
    except Exception:
        print(f"  (timed out waiting for {what})")
        return False


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def press(driver, key, expected_next):
    """Presses an arrow key on the page and waits for the card to show `expected_next`."""
    driver.find_element(By.TAG_NAME, "body").send_keys(key)
    return wait_for(driver, lambda d: card(d) == expected_next, f"card {expected_next!r}")


def touch_swipe(driver, dx, dy):
    """A finger drag across the card (pointer events of kind touch)."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    actions = ActionBuilder(driver, mouse=finger)
    element = driver.find_element(By.ID, "card")
    actions.pointer_action.move_to(element).pointer_down()
    for _ in range(5):
        actions.pointer_action.move_by(dx // 5, dy // 5)
    actions.pointer_action.pointer_up()
    actions.perform()


def skip_tutorial(driver):
    """The tutorial opens on a folder's first visit; the desktop checks skip it."""
    if not wait_for(driver, lambda d: d.find_element(By.ID, "tutorial").is_displayed(), "tutorial"):
        return False
    driver.find_element(By.XPATH, "//button[normalize-space()='Skip tutorial']").click()
    return wait_for(driver, lambda d: not d.find_element(By.ID, "tutorial").is_displayed(), "tutorial closed")


def confirm(driver, expected):
    """Answers the confirmation dialog with yes; True when it showed and said `expected`."""
    shown = wait_for(driver, lambda d: d.find_element(By.ID, "confirm").is_displayed(), "confirmation")
    said = text(driver, "confirm-text")
    print(f"       confirmation: {said}")
    driver.find_element(By.ID, "confirm-yes").click()
    return shown and all(part in said for part in expected)


def in_trash(name):
    info = os.path.join(TRASH, "info", name + ".trashinfo")
    if not os.path.exists(os.path.join(TRASH, "files", name)) or not os.path.exists(info):
        return False
    with open(info, encoding="utf-8") as file:
        lines = file.read().splitlines()
    # The spec's Path= is percent-encoded ("Screenshot%202026-…"), "/" and URL path characters left as is.
    encoded = urllib.parse.quote(f"{FOLDER}/{name}", safe="/!$&'()*+,:=@")
    return lines[0] == "[Trash Info]" and f"Path={encoded}" in lines


def refused_without_token():
    """A cross-site POST (no token, a foreign Origin) must be refused with 403."""
    base = URL.split("#", 1)[0].rstrip("/")
    request = urllib.request.Request(base + "/api/queue/empty", method="POST",
                                     headers={"Origin": "http://evil.example"})
    try:
        urllib.request.urlopen(request, timeout=60)
        return False
    except urllib.error.HTTPError as error:
        return error.code == 403


def run(driver):
    check("a POST without the token is refused", refused_without_token())
    driver.get(URL)
    start = "Screenshot 2026-11-25 at 10.00.00.png"
    check("the tutorial opens on the folder's first visit, as a dialog",
          wait_for(driver, lambda d: d.find_element(By.ID, "tutorial").is_displayed(), "tutorial")
          and driver.find_element(By.ID, "tutorial").get_attribute("role") == "dialog")
    shot(driver, "00-tutorial")
    check("Skip tutorial closes it", skip_tutorial(driver))
    check("the first card is the first photo", wait_for(driver, lambda d: card(d) == start, "first card"))
    check("the instruction bar names the mouse's and keyboard's gestures",
          "double-click or Backspace: undo" in text(driver, "instructions"))
    check("no cookie carries the token", not driver.get_cookies()
          and TOKEN not in driver.execute_script("return document.cookie"))
    check("the first card's thumbnail loaded with the header", wait_for(
        driver, lambda d: d.execute_script(
            "const i = document.getElementById('card-img');"
            "return !!i && i.complete && i.naturalWidth > 0"), "thumbnail"))
    check("the progress starts at 0 / 9", wait_for(driver, lambda d: text(d, "progress-text") == "0 / 9", "0 / 9"))
    shot(driver, "01-start")

    # Keyboard triage: right keeps, left queues.
    check("→ keeps the screenshot", press(driver, Keys.ARROW_RIGHT, "cat.jpg"))
    check("← queues cat.jpg", press(driver, Keys.ARROW_LEFT, "dog.jpg"))
    check("← queues dog.jpg", press(driver, Keys.ARROW_LEFT, "fish.jpg"))
    check("→ keeps fish.jpg", press(driver, Keys.ARROW_RIGHT, "flower.jpg"))
    check("the counters say 2 kept, 2 queued",
          wait_for(driver, lambda d: text(d, "count-kept") == "2" and text(d, "count-queued") == "2", "counters"))
    check("the bar shows 4 / 9", text(driver, "progress-text") == "4 / 9")
    shot(driver, "02-triaged-by-keyboard")

    # Reload: the session resumes at the same photo with the same counts.
    driver.refresh()
    check("after a reload the card is flower.jpg again",
          wait_for(driver, lambda d: card(d) == "flower.jpg", "resume"))
    check("after a reload the progress is 4 / 9",
          wait_for(driver, lambda d: text(d, "progress-text") == "4 / 9", "4 / 9"))
    time.sleep(0.5)
    check("the tutorial is shown once: not after a reload",
          not driver.find_element(By.ID, "tutorial").is_displayed())
    shot(driver, "03-resumed-after-reload")

    # Screenshots filter: only the screen-sized PNG is left of the two screenshots.
    Select(driver.find_element(By.ID, "filter")).select_by_value("screenshots")
    check("the screenshots filter shows phone-capture.png",
          wait_for(driver, lambda d: card(d) == "phone-capture.png", "screenshot card"))
    check("the screenshots filter counts 1 / 2",
          wait_for(driver, lambda d: text(d, "progress-text") == "1 / 2", "1 / 2"))
    check("under the filter the queued counter and the queue button agree (2)",
          text(driver, "count-queued") == "2" and text(driver, "queue-count") == "2")
    shot(driver, "04-screenshots-filter")
    Select(driver.find_element(By.ID, "filter")).select_by_value("all")
    check("back to all photos at flower.jpg", wait_for(driver, lambda d: card(d) == "flower.jpg", "all"))

    # Full-screen viewer with zoom.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)
    check("Enter opens the viewer",
          wait_for(driver, lambda d: "open" in d.find_element(By.ID, "viewer").get_attribute("class"), "viewer"))
    driver.find_element(By.ID, "zoom-in").click()
    driver.find_element(By.ID, "zoom-in").click()
    transform = driver.find_element(By.ID, "viewer-img").get_attribute("style")
    check("zooming in scales the photo", "scale(1.5625)" in transform)
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('viewer-img').complete"), "viewer image")
    shot(driver, "05-viewer-zoomed")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    check("Escape closes the viewer",
          wait_for(driver, lambda d: "open" not in d.find_element(By.ID, "viewer").get_attribute("class"), "closed"))

    # Undo the last action (fish kept): fish comes back, keep it again.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.BACKSPACE)
    check("Backspace undoes: fish.jpg is back", wait_for(driver, lambda d: card(d) == "fish.jpg", "undo"))
    check("→ keeps fish.jpg again", press(driver, Keys.ARROW_RIGHT, "flower.jpg"))

    # The delete queue: two photos, their size; per-photo undo brings dog back.
    driver.find_element(By.ID, "queue-button").click()
    check("the queue lists cat and dog",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".queue-item")) == 2, "queue items"))
    size = os.path.getsize(os.path.join(FOLDER, "cat.jpg")) + os.path.getsize(os.path.join(FOLDER, "dog.jpg"))
    check(f"the queue frees {round(size / 1e3)} KB", f"{round(size / 1e3)} KB" in text(driver, "queue-panel-size"))
    driver.execute_script("document.getElementById('queue-panel').scrollIntoView()")
    shot(driver, "06-delete-queue")
    click(driver, '.queue-item[data-path="dog.jpg"] .unqueue')
    check("per-photo undo puts dog.jpg back on the card", wait_for(driver, lambda d: card(d) == "dog.jpg", "dog"))
    # A touch swipe to the left queues it again.
    touch_swipe(driver, -300, 0)
    check("a touch swipe left queues dog.jpg", wait_for(driver, lambda d: card(d) == "flower.jpg", "swipe"))
    check("the queue holds 2 again",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".queue-item")) == 2, "queue 2"))

    # Empty the queue into the trash, after a confirmation stating count and size; cancel first.
    driver.find_element(By.ID, "empty-queue").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "confirm").is_displayed(), "confirmation")
    shot(driver, "06b-confirm-move-all")
    driver.find_element(By.ID, "confirm-no").click()
    check("cancelling the confirmation moves nothing",
          wait_for(driver, lambda d: "Nothing was moved" in text(d, "message"), "cancelled")
          and os.path.exists(os.path.join(FOLDER, "cat.jpg")))
    driver.find_element(By.ID, "empty-queue").click()
    check(f"the confirmation states 2 photos and {round(size / 1e3)} KB",
          confirm(driver, ["2 photos", f"{round(size / 1e3)} KB"]))
    check("emptying reports 2 moved", wait_for(driver, lambda d: "Moved 2 photos" in text(d, "message"), "moved"))
    check("cat.jpg and dog.jpg are gone from the folder",
          not os.path.exists(os.path.join(FOLDER, "cat.jpg")) and not os.path.exists(os.path.join(FOLDER, "dog.jpg")))
    check("cat.jpg is in the trash with its .trashinfo", in_trash("cat.jpg"))
    check("dog.jpg is in the trash with its .trashinfo", in_trash("dog.jpg"))
    check("the trashed counter says 2", wait_for(driver, lambda d: text(d, "count-trashed") == "2", "trashed"))
    check("the empty queue reads 0 and its actions are disabled",
          wait_for(driver, lambda d: text(d, "queue-panel-count") == "0"
                   and not d.find_element(By.ID, "empty-queue").is_enabled()
                   and not d.find_element(By.ID, "trash-selected").is_enabled()
                   and not d.find_element(By.ID, "restore-all").is_enabled(), "empty queue"))
    shot(driver, "07-queue-emptied-into-trash")
    driver.find_element(By.ID, "queue-button").click()

    # Keep the rest, recognise the receipt's text with ↑.
    check("→ flower", press(driver, Keys.ARROW_RIGHT, "fruit.jpg"))
    check("→ fruit", press(driver, Keys.ARROW_RIGHT, "insect.jpg"))
    check("→ insect", press(driver, Keys.ARROW_RIGHT, "phone-capture.png"))
    check("→ phone-capture", press(driver, Keys.ARROW_RIGHT, "receipt.png"))
    check("↑ recognises the receipt and keeps it", press(driver, Keys.ARROW_UP, ""))
    check("the recognised counter reaches 1",
          wait_for(driver, lambda d: text(d, "count-recognized") == "1", "recognised", timeout=60))
    check("every photo is triaged", driver.find_element(By.ID, "done").is_displayed())
    driver.find_element(By.ID, "texts-button").click()
    check("the text list shows the receipt",
          wait_for(driver, lambda d: "GROCERY" in text(d, "text-list"), "text list"))
    search = driver.find_element(By.ID, "text-search")
    search.send_keys("total")
    check("searching “total” finds it",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".text-entry")) == 1, "search hit"))
    search.send_keys("zzz")
    check("searching “totalzzz” finds nothing",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".text-entry")) == 0, "search miss"))
    search.clear()
    search.send_keys(" ")
    search.send_keys(Keys.BACKSPACE)
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".text-entry")) == 1, "search cleared")
    check("each text shows when it was read",
          text(driver, "text-list").count("read ") >= 1
          and bool(driver.find_element(By.CSS_SELECTOR, '.text-entry[data-path="receipt.png"] .read-at').text))
    driver.execute_script("document.getElementById('texts-panel').scrollIntoView()")
    shot(driver, "08-recognised-text")
    driver.find_element(By.CSS_SELECTOR, "#export-texts button").click()
    exported = os.path.join(DOWNLOADS, "pixscan-texts.txt")
    check("the export downloads pixscan-texts.txt",
          wait_for(driver, lambda d: os.path.exists(exported), "download"))
    content = open(exported, encoding="utf-8").read() if os.path.exists(exported) else ""
    check("the .txt has the receipt's heading and text",
          "== receipt.png ==" in content and "CORNER GROCERY" in content and "TOTAL" in content)
    shot(driver, "09-done")

    # A photo copied in while PixScan runs appears after a rescan, as the next card: a camera
    # photo with an EXIF DateTimeOriginal (Scripts/pixscan-exif-fixture.py), copied in with a
    # new file time.
    os.makedirs(os.path.join(FOLDER, "later"), exist_ok=True)
    shutil.copyfile(EXIF_PHOTO, os.path.join(FOLDER, "later", "camera.jpg"))
    before = text(driver, "progress-text")
    driver.find_element(By.ID, "rescan").click()
    check("a rescan shows the photo copied in",
          wait_for(driver, lambda d: card(d) == "later/camera.jpg", "rescanned"))
    check(f"the progress counts it ({before} → one more)",
          text(driver, "progress-text").split(" / ")[1] == str(int(before.split(" / ")[1]) + 1))

    # Queued and enlarged: the preview gives its dimensions and the date it was taken (EXIF),
    # not the file's time; then it is taken out of the queue again (back on the card).
    check("← queues later/camera.jpg", press(driver, Keys.ARROW_LEFT, ""))
    driver.find_element(By.ID, "queue-button").click()
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".queue-item img")) == 1, "queued camera.jpg")
    click(driver, '.queue-item[data-path="later/camera.jpg"] img')
    check("the enlarged camera photo shows 320 × 240",
          wait_for(driver, lambda d: d.find_element(By.ID, "preview").is_displayed()
                   and "320 × 240" in text(d, "preview-info"), "preview info"))
    taken = driver.execute_script(
        "return formatDate(new Date(2019, 6, 14, 9, 26, 53).getTime())")
    said = text(driver, "preview-info")
    print(f"       preview: {said}")
    check(f"its date is the EXIF DateTimeOriginal, said as taken ({taken})",
          f"taken {taken}" in said and "modified" not in said
          and driver.find_element(By.ID, "preview-info").get_attribute("data-date-kind") == "taken")
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('preview-img'); return i.complete && i.naturalWidth > 0"), "preview image")
    shot(driver, "10-queue-preview-exif-date")
    driver.find_element(By.ID, "preview-keep").click()
    check("Keep it takes it out of the queue, back on the card",
          wait_for(driver, lambda d: card(d) == "later/camera.jpg", "camera back"))
    driver.find_element(By.ID, "queue-button").click()


# ---------------------------------------------------------------- phone profile
# Every input here is a touch sent through the DevTools protocol (Input.dispatchTouchEvent), taps
# on buttons included: a tap is the browser's own tap gesture, turned into a click by Chromium.

def touch(driver, kind, points):
    """One DevTools touch event: `points` are (x, y) in CSS pixels, one per finger."""
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def centre(driver, selector):
    """The centre of the element `selector` finds (an id, or a CSS selector), scrolled into view."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]) || document.querySelector(arguments[0]);"
        "e.scrollIntoView({block: 'nearest', inline: 'nearest'});"
        "const r = e.getBoundingClientRect();"
        "return [r.left + r.width / 2, r.top + r.height / 2];", selector)


def finger_drag(driver, x, y, dx, dy, steps=10):
    """A quick drag (a flick: the moves follow each other within milliseconds)."""
    touch(driver, "touchStart", [(x, y)])
    for i in range(1, steps + 1):
        touch(driver, "touchMove", [(x + dx * i / steps, y + dy * i / steps)])
    touch(driver, "touchEnd", [])


def finger_swipe(driver, element_id, dx, dy):
    """A swipe from the centre of `element_id`: the card's container, which stays in place while
    the card itself springs back or flies out."""
    time.sleep(0.3)
    x, y = centre(driver, element_id)
    finger_drag(driver, x, y, dx, dy)


def tap(driver, x, y):
    touch(driver, "touchStart", [(x, y)])
    touch(driver, "touchEnd", [])


def tap_on(driver, selector):
    """A finger's tap on the centre of the element `selector` finds."""
    for attempt in range(5):
        try:
            tap(driver, *centre(driver, selector))
            return
        except Exception:
            if attempt == 4:
                raise
            time.sleep(0.1)


def pinch(driver, x, y, start, end, steps=10):
    """Two fingers on a horizontal line through (x, y), `start` px apart, moved to `end` apart."""
    touch(driver, "touchStart", [(x - start / 2, y), (x + start / 2, y)])
    for i in range(1, steps + 1):
        half = (start + (end - start) * i / steps) / 2
        touch(driver, "touchMove", [(x - half, y), (x + half, y)])
    touch(driver, "touchEnd", [])


def no_horizontal_scroll(driver):
    return driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth"
        " && document.body.scrollWidth <= window.innerWidth")


def counts(driver):
    return tuple(text(driver, i) for i in ["progress-text", "count-kept", "count-queued"])


def shown(driver, element_id):
    return driver.find_element(By.ID, element_id).is_displayed()


def confirm_by_touch(driver, expected, answer="confirm-yes"):
    """Answers the confirmation dialog by a tap; True when it showed and said `expected`."""
    showing = wait_for(driver, lambda d: shown(d, "confirm"), "confirmation")
    said = text(driver, "confirm-text")
    print(f"       confirmation: {said}")
    tap_on(driver, answer)
    closed = wait_for(driver, lambda d: not shown(d, "confirm"), "confirmation closed")
    return showing and closed and all(part in said for part in expected)


def sheet_over_photo(driver, panel_id):
    """The sheet `panel_id` is fixed to the bottom of the screen, over the card, within the width."""
    return driver.execute_script(
        "const p = document.getElementById(arguments[0]).getBoundingClientRect();"
        "const c = document.getElementById('card').getBoundingClientRect();"
        "return getComputedStyle(document.getElementById(arguments[0])).position === 'fixed'"
        " && Math.abs(p.bottom - innerHeight) <= 1 && p.top < c.bottom && p.left >= 0 && p.right <= innerWidth;",
        panel_id)


def card_at_rest(driver):
    """The card sprang back: no transform, no committed hint, the hint faded."""
    return driver.execute_script(
        "const c = document.getElementById('card');"
        "return c.style.transform === '' && !c.dataset.hint && getComputedStyle(document.getElementById('hint')).opacity === '0';")


def orient(driver, landscape):
    """Turns the emulated phone: 844 x 390 landscape, or back to 390 x 844 portrait."""
    width, height = (844, 390) if landscape else (390, 844)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 3, "mobile": True,
        "screenOrientation": {"type": "landscapePrimary" if landscape else "portraitPrimary",
                              "angle": 90 if landscape else 0}})
    return wait_for(driver, lambda d: d.execute_script("return innerWidth") == width, f"{width} px wide")


def visible_point(driver, selector, inset=None):
    """A point in the middle of the visible height of `selector`'s element (at its horizontal
    centre, or `inset` px from its left edge), found without scrolling the page; and that height."""
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);"
        "return [r.left + (arguments[1] ?? r.width / 2), (top + bottom) / 2, bottom - top];", selector, inset)


def check_page_scroll(driver, before):
    """Vertical page scrolling never triages. At 390 x 844 the page fits the screen (nothing to
    scroll), so the phone is turned to landscape (844 x 390), where the page is taller than the
    screen. The finger starts where a user scrolling starts, off the card (on the instruction bar
    below it, then on the header), and passes over the card: the page scrolls both ways and no
    photo is decided. (A vertical drag that starts on the card is a swipe up or down by design.)"""
    scroll_y = lambda d: d.execute_script("return scrollY")
    check("phone: at 390 x 844 the page fits the screen (nothing to scroll)", driver.execute_script(
        "return document.documentElement.scrollHeight <= innerHeight"))
    check("phone: turned to landscape (844 x 390)", orient(driver, True))
    driver.execute_script("scrollTo(0, 0)")
    room = driver.execute_script("return document.documentElement.scrollHeight - innerHeight")
    print(f"       landscape: the page is {room} px taller than the screen")
    check("phone landscape: the page is taller than the screen", room >= 20)
    x, y, shown_px = visible_point(driver, "#instructions")
    card_box = driver.execute_script("const r = document.getElementById('card').getBoundingClientRect(); return [r.top, r.bottom];")
    check("phone landscape: the instruction bar is on screen, below the card", shown_px > 10 and y > card_box[1])
    time.sleep(0.3)
    finger_drag(driver, x, y, 0, -220)  # up across the card's lower half: the page scrolls down
    scrolled = wait_for(driver, lambda d: scroll_y(d) >= min(room, 20) - 1, "scrolled down")
    down = scroll_y(driver)
    print(f"       a finger from the instruction bar up 220 px: scrollY 0 -> {down}")
    check("phone landscape: a vertical touch scroll from the instruction bar scrolls the page down",
          scrolled and down > 0)
    # Waited for, not slept for: the hint fades in a transition a loaded machine can stretch.
    check("phone landscape: and decides nothing (same photo, same counters), the card at rest",
          wait_for(driver, lambda d: (card(d), counts(d)) == before and card_at_rest(d), "card at rest"))
    shot(driver, "phone-05b-landscape-scrolled")
    x, y, shown_px = visible_point(driver, "header", inset=5)  # its padding, beside the title
    print(f"       the header shows {shown_px:.0f} px; the finger starts at ({x:.0f}, {y:.0f})")
    finger_drag(driver, x, y, 0, 220)  # down from the header: the page scrolls back up
    back = wait_for(driver, lambda d: scroll_y(d) == 0, "scrolled up")
    check("phone landscape: a touch scroll down from the header scrolls the page back up, deciding nothing",
          back and wait_for(driver, lambda d: (card(d), counts(d)) == before and card_at_rest(d), "card at rest"))
    check("phone: turned back to portrait (390 x 844)", orient(driver, False))


def run_phone(driver):
    driver.get(URL)
    check("phone: the viewport is 390 px wide", driver.execute_script("return window.innerWidth") == 390)
    check("phone: the page loads at a card", wait_for(driver, lambda d: card(d) != "", "card"))
    time.sleep(0.5)
    check("phone: the tutorial already done in this folder is not shown", not shown(driver, "tutorial"))
    check("phone: no horizontal scrolling", no_horizontal_scroll(driver))
    check("phone: the header's actions are on screen", driver.execute_script(
        "return [...document.querySelectorAll('header button')].every(b => {"
        " const r = b.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth && r.bottom <= innerHeight; })"))

    # Start over, behind a confirmation: the tutorial comes back.
    tap_on(driver, "start-over")
    wait_for(driver, lambda d: shown(d, "confirm"), "confirmation")
    shot(driver, "phone-01-confirm-start-over")
    check("phone: Start over asks first", confirm_by_touch(driver, ["Start over", "trash"]))
    check("phone: after Start over the tutorial is shown again",
          wait_for(driver, lambda d: shown(d, "tutorial"), "tutorial"))
    check("phone: Start over forgot the decisions (nothing kept or queued)",
          wait_for(driver, lambda d: text(d, "count-kept") == "0" and text(d, "count-queued") == "0", "reset"))
    check("phone: the trash was left alone", in_trash("cat.jpg") and in_trash("dog.jpg"))
    check("phone: the tutorial has no image files", not driver.find_elements(By.CSS_SELECTOR, "#tutorial img"))
    shot(driver, "phone-02-tutorial")

    # The tutorial, performed: a wrong swipe does not count, each right one does; then a tap on
    # its mock "Delete queue" and "Texts" opens each mock sheet. The swipes are flicks: a tap
    # right after one must still be a tap (it was not: see ownTouchMoves in the page).
    step = lambda d: d.find_element(By.ID, "tutorial").get_attribute("data-step")
    finger_swipe(driver, "practice-area", 0, -200)
    time.sleep(0.3)
    check("phone: a wrong swipe does not advance the tutorial", step(driver) == "left")
    for direction, (dx, dy), nxt in [("left", (-170, 0), "right"), ("right", (170, 0), "up"),
                                      ("up", (0, -170), "down"), ("down", (0, 170), "queue")]:
        finger_swipe(driver, "practice-area", dx, dy)
        check(f"phone: tutorial swipe {direction} performed", wait_for(driver, lambda d: step(d) == nxt, nxt))
    for button, sheet, nxt in [("tutorial-queue", "mock-queue", "texts"), ("tutorial-texts", "mock-texts", "done")]:
        tap_on(driver, button)
        opened = wait_for(driver, lambda d: shown(d, sheet), sheet)
        check(f"phone: a tap on the tutorial's {sheet[5:]} button opens its sheet", opened)
        if sheet == "mock-queue":
            shot(driver, "phone-03-tutorial-queue")
        tap_on(driver, f"#{sheet} .mock-continue")
        check(f"phone: tutorial: opening the {sheet[5:]} performed",
              wait_for(driver, lambda d: step(d) == nxt, nxt))
    tap_on(driver, "tutorial-finish")
    check("phone: the tutorial closes when finished",
          wait_for(driver, lambda d: not shown(d, "tutorial"), "closed"))
    driver.refresh()
    wait_for(driver, lambda d: card(d) != "", "card")
    time.sleep(0.5)
    check("phone: the tutorial is shown once (not after a reload)", not shown(driver, "tutorial"))
    check("phone: the instruction bar names touch gestures",
          wait_for(driver, lambda d: "double-tap: undo" in text(d, "instructions"), "touch instructions"))
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('card-img'); return i.complete && i.naturalWidth > 0"), "card image")
    shot(driver, "phone-04-card")

    # A drag shows its colour-coded direction, commits only past the threshold, and springs back
    # when the finger returns before lifting.
    before = (card(driver), counts(driver))
    x, y = centre(driver, "stage")
    touch(driver, "touchStart", [(x, y)])
    hint_of = lambda: driver.execute_script(
        "const h = document.getElementById('hint'), c = document.getElementById('card');"
        "return {label: h.textContent, colour: getComputedStyle(h).backgroundColor, opacity: +h.style.opacity,"
        " committed: c.dataset.hint || '', border: getComputedStyle(c).borderTopColor}")
    blue = "rgb(59, 111, 216)"
    for i in range(1, 6):
        touch(driver, "touchMove", [(x, y - 12 * i)])
    hint = hint_of()
    print(f"       hint 60 px up: {hint}")
    check("phone: dragging up shows the blue TEXT + KEEP hint, not yet committed",
          hint["label"] == "TEXT + KEEP" and hint["colour"] == blue and 0 < hint["opacity"] < 1
          and hint["committed"] == "" and hint["border"] != blue)
    for i in range(6, 11):
        touch(driver, "touchMove", [(x, y - 12 * i)])
    hint = hint_of()
    print(f"       hint 120 px up: {hint}")
    check("phone: past the threshold the drag is committed (blue border, full hint)",
          hint["committed"] == "up" and hint["border"] == blue and hint["opacity"] == 1)
    shot(driver, "phone-05-swipe-hint")
    for i in range(9, -1, -3):
        touch(driver, "touchMove", [(x, y - 12 * i)])
    touch(driver, "touchEnd", [])
    # Waited for, not slept for: the spring-back and the hint's fade are transitions a loaded
    # machine can stretch past a fixed pause.
    check("phone: a drag brought back before lifting does not triage, and the card springs back",
          wait_for(driver, lambda d: (card(d), counts(d)) == before and card_at_rest(d), "card at rest"))
    finger_swipe(driver, "stage", 0, 40)
    check("phone: a short swipe (40 px) does not triage, and the card springs back",
          wait_for(driver, lambda d: (card(d), counts(d)) == before and card_at_rest(d), "card at rest"))
    finger_swipe(driver, "stage", 150, 150)
    time.sleep(0.6)
    check("phone: a diagonal swipe (45°) does not triage", (card(driver), counts(driver)) == before)
    x, y = centre(driver, "instructions")
    finger_drag(driver, x, y, 0, -300)
    time.sleep(0.6)
    check("phone: a drag on the page outside the card does not triage", (card(driver), counts(driver)) == before)
    check_page_scroll(driver, before)

    # Four swipes by touch: up reads and keeps (the screenshot: its text is shared below), down
    # reads and queues, left queues, right keeps.
    seen = []
    processed = int(text(driver, "progress-text").split(" / ")[0])
    for direction, (dx, dy) in [("up", (0, -250)), ("down", (0, 250)), ("left", (-180, 0)), ("right", (180, 0))]:
        was = card(driver)
        seen.append(was)
        finger_swipe(driver, "stage", dx, dy)
        check(f"phone: a touch swipe {direction} triages {was}",
              wait_for(driver, lambda d: card(d) not in ("", was), f"after {direction}"))
    check("phone: the counters say 4 more processed, 2 kept, 2 queued",
          wait_for(driver, lambda d: counts(d)[1:] == ("2", "2")
                   and int(counts(d)[0].split(" / ")[0]) == processed + 4, "counts"))

    # Double-tap undoes the last swipe (the right one).
    x, y = centre(driver, "stage")
    tap(driver, x, y)
    tap(driver, x, y)
    check("phone: double-tap undoes: the last photo is back",
          wait_for(driver, lambda d: card(d) == seen[3], "undo"))
    check("phone: and the counters with it (1 kept)", wait_for(driver, lambda d: counts(d)[1] == "1", "1 kept"))
    finger_swipe(driver, "stage", 180, 0)
    wait_for(driver, lambda d: card(d) != seen[3], "down again")

    # Long-press opens the viewer; pinch zooms 1x-5x; pan is clamped; double-tap toggles.
    # The finger stays down until the viewer shows (as a user's would), at most 20 s. The hold is
    # timed from before the touch is sent, so that the command's own return (slow on a loaded
    # machine) cannot make a hold of 0.5 s look shorter.
    x, y = centre(driver, "stage")
    held = time.monotonic()
    touch(driver, "touchStart", [(x, y)])
    opened = wait_for(driver, lambda d: shown(d, "viewer"), "viewer")
    held = time.monotonic() - held
    touch(driver, "touchEnd", [])
    print(f"       the viewer showed after {held:.2f} s of holding")
    check("phone: a long press opens the full-screen viewer (a dialog), not before 0.5 s",
          opened and held >= 0.5 and driver.find_element(By.ID, "viewer").get_attribute("role") == "dialog")
    wait_for(driver, lambda d: d.execute_script("const i = document.getElementById('viewer-img'); return i.complete && i.naturalWidth > 0"), "viewer image")
    zoom = lambda d: float(d.find_element(By.ID, "viewer-img").get_attribute("data-zoom") or 0)
    pinch(driver, 195, 420, 100, 250)
    check("phone: a pinch from 100 to 250 px zooms to 2.5x",
          wait_for(driver, lambda d: abs(zoom(d) - 2.5) < 0.05, "zoom 2.5"))
    pinch(driver, 195, 420, 40, 380)
    check("phone: a wide pinch stops at 5x", wait_for(driver, lambda d: abs(zoom(d) - 5) < 0.01, "zoom 5"))
    img = driver.find_element(By.ID, "viewer-img")
    pan_of = lambda: [float(img.get_attribute(a) or "nan")
                      for a in ["data-pan-x", "data-pan-limit-x", "data-pan-y", "data-pan-limit-y"]]
    for _ in range(6):  # six drags across the whole screen, down and to the right: 2100 x 4800 px
        finger_drag(driver, 20, 20, 350, 800)
    pan = pan_of()
    print(f"       pan after six drags to the bottom right: x {pan[0]} (limit {pan[1]}), y {pan[2]} (limit {pan[3]})")
    check("phone: the pan stops at the photo's top-left edges", pan[1] > 0 and pan[0] == pan[1] and pan[2] == pan[3])
    shot(driver, "phone-06-viewer-zoomed")
    for _ in range(6):
        finger_drag(driver, 370, 820, -350, -800)
    pan = pan_of()
    print(f"       pan after six drags to the top left: x {pan[0]}, y {pan[2]}")
    check("phone: and at its bottom-right edges", pan[0] == -pan[1] and pan[2] == -pan[3])
    pinch(driver, 195, 420, 380, 30)
    check("phone: a pinch in stops at 1x, the pan back at the centre",
          wait_for(driver, lambda d: zoom(d) == 1, "zoom 1") and pan_of()[0::2] == [0, 0])
    tap(driver, 195, 420)
    tap(driver, 195, 420)
    check("phone: double-tap in the viewer toggles to 2x", wait_for(driver, lambda d: zoom(d) == 2, "zoom 2"))
    time.sleep(0.5)
    tap(driver, 195, 420)
    tap(driver, 195, 420)
    check("phone: double-tap in the viewer toggles back to 1x", wait_for(driver, lambda d: zoom(d) == 1, "zoom 1"))
    tap_on(driver, "viewer-close")
    check("phone: a tap on Close closes the viewer", wait_for(driver, lambda d: not shown(d, "viewer"), "viewer closed"))

    # The queue as a sheet over the photo: pick one of two, enlarge it, move it after a confirmation.
    tap_on(driver, "queue-button")
    check("phone: the queue sheet lists 2 photos",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".queue-item")) == 2, "queue items"))
    check("phone: the queue is a sheet over the photo", sheet_over_photo(driver, "queue-panel"))
    check("phone: no horizontal scrolling with the sheet open", no_horizontal_scroll(driver))
    check("phone: with nothing picked, Move selected is disabled",
          text(driver, "selected-count") == "0" and not driver.find_element(By.ID, "trash-selected").is_enabled())
    chosen = seen[2]
    other = driver.execute_script(
        "return [...document.querySelectorAll('.queue-item')].map(e => e.dataset.path).find(p => p !== arguments[0])", chosen)
    wait_for(driver, lambda d: d.execute_script(
        "return [...document.querySelectorAll('.queue-item img')].every(i => i.complete && i.naturalWidth > 0)"), "queue thumbnails")
    shot(driver, "phone-07-queue-sheet")
    tap_on(driver, f'.queue-item[data-path="{chosen}"] img')
    check("phone: a tap on a queued photo enlarges it, with its dimensions",
          wait_for(driver, lambda d: shown(d, "preview") and " × " in text(d, "preview-info"), "dimensions"))
    said = text(driver, "preview-info")
    print(f"       preview: {said}")
    modified = driver.execute_script(
        "return formatDate(Math.round(arguments[0]))", os.path.getmtime(os.path.join(FOLDER, chosen)) * 1000)
    check(f"phone: {chosen} has no EXIF date: the preview gives its file time, said as modified ({modified})",
          f"file modified {modified}" in said and "taken" not in said
          and driver.find_element(By.ID, "preview-info").get_attribute("data-date-kind") == "modified")
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('preview-img'); return i.complete && i.naturalWidth > 0"), "preview image")
    check("phone: the enlarged photo fits the screen", driver.execute_script(
        "const r = document.getElementById('preview').getBoundingClientRect();"
        "return r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight"))
    shot(driver, "phone-08-queue-preview")
    tap_on(driver, "preview-select")
    tap_on(driver, "preview-close")
    check("phone: selected from the enlarged photo: one photo selected, Move selected enabled",
          wait_for(driver, lambda d: text(d, "selected-count") == "1"
                   and d.find_element(By.ID, "trash-selected").is_enabled(), "1 selected"))
    tap_on(driver, f'.queue-item[data-path="{other}"] input.pick')
    check("phone: a tap on the other's box selects it too (2)",
          wait_for(driver, lambda d: text(d, "selected-count") == "2", "2 selected"))
    tap_on(driver, f'.queue-item[data-path="{other}"] input.pick')
    check("phone: and a second tap deselects it (1)",
          wait_for(driver, lambda d: text(d, "selected-count") == "1", "1 selected again"))
    tap_on(driver, "trash-selected")
    wait_for(driver, lambda d: shown(d, "confirm"), "confirmation")
    shot(driver, "phone-09-confirm-move-selected")
    chosen_size = os.path.getsize(os.path.join(FOLDER, chosen))
    check("phone: cancelling the confirmation moves nothing",
          confirm_by_touch(driver, ["1 photo ", f"{round(chosen_size / 1e3)} KB"], answer="confirm-no")
          and wait_for(driver, lambda d: "Nothing was moved" in text(d, "message"), "cancelled")
          and os.path.exists(os.path.join(FOLDER, chosen)))
    tap_on(driver, "trash-selected")
    check("phone: the confirmation states 1 photo and its size",
          confirm_by_touch(driver, ["1 photo ", f"{round(chosen_size / 1e3)} KB"]))
    check(f"phone: {chosen} is in the trash, {other} still queued",
          wait_for(driver, lambda d: "Moved 1 photo" in text(d, "message"), "moved one")
          and in_trash(chosen) and os.path.exists(os.path.join(FOLDER, other)))
    check("phone: the queue holds the other one, the counters agree",
          wait_for(driver, lambda d: [e.get_attribute("data-path") for e in d.find_elements(By.CSS_SELECTOR, ".queue-item")] == [other]
                   and text(d, "queue-count") == "1" and text(d, "count-queued") == "1"
                   and text(d, "queue-panel-count") == "1", "queue 1"))
    tap_on(driver, '.close-panel[data-panel="queue-panel"]')
    check("phone: Close closes the queue sheet", wait_for(driver, lambda d: not shown(d, "queue-panel"), "queue closed"))

    # Texts: a sheet too; when each was read, and share (Web Share API) or download.
    tap_on(driver, "texts-button")
    check("phone: the texts sheet lists the two read photos with their time",
          wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".text-entry .read-at")) == 2, "texts", timeout=60))
    check("phone: the texts are a sheet over the photo", sheet_over_photo(driver, "texts-panel"))
    shot(driver, "phone-10-texts-sheet")
    has_share = driver.execute_script("return !!navigator.share")
    path = seen[0]
    share_button = f'.text-entry[data-path="{path}"] .share'
    if has_share:
        print("       this browser has navigator.share; replacing it with a recorder")
    # A recorder in place of the share sheet (headless Chromium has none to show); the page
    # builds its buttons on each load, so the texts are reloaded to label them "Share".
    driver.execute_script("window.__shared = null; navigator.share = async (d) => { window.__shared = d; };")
    driver.execute_script("loadTexts()")
    check("phone: with the Web Share API the button reads Share",
          wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, share_button).text == "Share", "Share"))
    tap_on(driver, share_button)
    shared = wait_for(driver, lambda d: (d.execute_script("return window.__shared") or {}).get("title") == path, "shared")
    shared_text = (driver.execute_script("return window.__shared") or {}).get("text", "")
    print(f"       shared: {shared_text!r}")
    check(f"phone: Share hands {path}'s text (Message 1) and its name to the Web Share API",
          shared and "Message 1" in shared_text and shared_text == driver.execute_script(
              "return textEntries.find(e => e.path === arguments[0]).text", path))
    driver.execute_script("navigator.share = undefined; loadTexts();")
    check("phone: without it the button reads Download",
          wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, share_button).text == "Download", "Download"))
    tap_on(driver, share_button)
    name = "".join(c if (c.isalnum() or c in "._-") else "_" for c in path) + ".txt"
    target = os.path.join(DOWNLOADS, name)
    check(f"phone: and the text downloads as {name}",
          wait_for(driver, lambda d: os.path.exists(target) and open(target, encoding="utf-8").read() == shared_text,
                   "download"))
    check("phone: no horizontal scrolling at the end", no_horizontal_scroll(driver))


def browser(mobile):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    arguments = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"]
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3, "touch": True, "mobile": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
                         " Chrome/120.0 Mobile Safari/537.36"})
        arguments.append("--window-size=390,844")
    else:
        arguments.append("--window-size=1200,1000")
    for argument in arguments:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": DOWNLOADS, "download.prompt_for_download": False,
    })
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main():
    os.makedirs(DOWNLOADS, exist_ok=True)
    profiles = []
    for name, mobile, body in [("desktop", False, run), ("phone", True, run_phone)]:
        print(f"pixscan-browser: {name} profile")
        before, started = (passed, failed), time.monotonic()
        driver = browser(mobile)
        try:
            if mobile:
                # Downloads in headless Chromium need the directory set through the protocol too.
                driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
            body(driver)
        except Exception:
            traceback.print_exc()
            check(f"the {name} run finished without an exception", False)
            try:
                shot(driver, f"99-{name}-failure")
            except Exception:
                pass
        finally:
            driver.quit()
        profiles.append(f"{name} {passed - before[0]} passed, {failed - before[1]} failed"
                        f" in {time.monotonic() - started:.0f} s")
    # One line per profile, then the total (Scripts/test.sh reads both).
    print(f"pixscan-browser profiles: {'; '.join(profiles)}")
    print(f"pixscan-browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
