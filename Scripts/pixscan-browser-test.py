#!/usr/bin/env python3
"""PixScan's page in real headless Chromium, driven by Selenium (run by pixscan-browser-test.sh).

Usage: pixscan-browser-test.py URL FOLDER TRASH SHOTS   (URL with its #token=...)

Triages FOLDER (made by the shell script: the sample photos, two screenshots, a receipt) by
keyboard and by a touch swipe, reloads and checks that it resumes at the same photo, uses the
screenshots filter, undoes, empties the delete queue into TRASH (the freedesktop trash under a
temporary XDG_DATA_HOME), recognises the receipt's text and exports it as .txt. Saves a PNG of
each state in SHOTS. Prints one line per check and a last line
`pixscan-browser: N passed, M failed`; exits 1 when a check failed.
"""

import os
import shutil
import sys
import time
import traceback
import urllib.error
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
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
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


def in_trash(name):
    info = os.path.join(TRASH, "info", name + ".trashinfo")
    if not os.path.exists(os.path.join(TRASH, "files", name)) or not os.path.exists(info):
        return False
    with open(info, encoding="utf-8") as file:
        lines = file.read().splitlines()
    return lines[0] == "[Trash Info]" and f"Path={FOLDER}/{name}" in lines


def refused_without_token():
    """A cross-site POST (no token, a foreign Origin) must be refused with 403."""
    base = URL.split("#", 1)[0].rstrip("/")
    request = urllib.request.Request(base + "/api/queue/empty", method="POST",
                                     headers={"Origin": "http://evil.example"})
    try:
        urllib.request.urlopen(request, timeout=10)
        return False
    except urllib.error.HTTPError as error:
        return error.code == 403


def run(driver):
    check("a POST without the token is refused", refused_without_token())
    driver.get(URL)
    start = "Screenshot 2026-11-25 at 10.00.00.png"
    check("the first card is the first photo", wait_for(driver, lambda d: card(d) == start, "first card"))
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
    shot(driver, "03-resumed-after-reload")

    # Screenshots filter: only the screen-sized PNG is left of the two screenshots.
    Select(driver.find_element(By.ID, "filter")).select_by_value("screenshots")
    check("the screenshots filter shows phone-capture.png",
          wait_for(driver, lambda d: card(d) == "phone-capture.png", "screenshot card"))
    check("the screenshots filter counts 1 / 2",
          wait_for(driver, lambda d: text(d, "progress-text") == "1 / 2", "1 / 2"))
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

    # Empty the queue into the trash.
    driver.find_element(By.ID, "empty-queue").click()
    check("emptying reports 2 moved", wait_for(driver, lambda d: "Moved 2 photos" in text(d, "message"), "moved"))
    check("cat.jpg and dog.jpg are gone from the folder",
          not os.path.exists(os.path.join(FOLDER, "cat.jpg")) and not os.path.exists(os.path.join(FOLDER, "dog.jpg")))
    check("cat.jpg is in the trash with its .trashinfo", in_trash("cat.jpg"))
    check("dog.jpg is in the trash with its .trashinfo", in_trash("dog.jpg"))
    check("the trashed counter says 2", wait_for(driver, lambda d: text(d, "count-trashed") == "2", "trashed"))
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

    # A photo copied in while PixScan runs appears after a rescan, as the next card.
    os.makedirs(os.path.join(FOLDER, "later"), exist_ok=True)
    shutil.copyfile(os.path.join(FOLDER, "fish.jpg"), os.path.join(FOLDER, "later", "fish-2.jpg"))
    before = text(driver, "progress-text")
    driver.find_element(By.ID, "rescan").click()
    check("a rescan shows the photo copied in",
          wait_for(driver, lambda d: card(d) == "later/fish-2.jpg", "rescanned"))
    check(f"the progress counts it ({before} → one more)",
          text(driver, "progress-text").split(" / ")[1] == str(int(before.split(" / ")[1]) + 1))


def main():
    os.makedirs(DOWNLOADS, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000",
                     "--disable-gpu", "--no-first-run"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": DOWNLOADS, "download.prompt_for_download": False,
    })
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        run(driver)
    except Exception:
        traceback.print_exc()
        check("the run finished without an exception", False)
        try:
            shot(driver, "99-failure")
        except Exception:
            pass
    finally:
        driver.quit()
    print(f"pixscan-browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
