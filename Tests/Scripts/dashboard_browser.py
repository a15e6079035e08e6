"""Drives the farm's dashboard in headless Chromium during a real render (DashboardBrowserTests).

The Swift test runs the farm; this script is the user at the browser. They talk through files in
--handshake: this script writes `start-workers` and `stop-coordinator` when it wants the farm to
move on, and `finished` at its end. What it saw goes to standard output as JSON; any check that fails raises.
"""
import argparse
import json
import pathlib
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--job", type=int, required=True)
    parser.add_argument("--shots", required=True)
    parser.add_argument("--handshake", required=True)
    args = parser.parse_args()
    shots = pathlib.Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    handshake = pathlib.Path(args.handshake)

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    seen = {"screenshots": []}
    try:
        run(driver, args, shots, handshake, seen)
    finally:
        driver.quit()
    print(json.dumps(seen))


def shot(driver, shots, name, seen):
    path = shots / name
    driver.save_screenshot(str(path))
    seen["screenshots"].append(name)


def wait(driver, what, condition, timeout=30):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: condition(d), message=f"timed out waiting for {what}")


def visible(driver, selector):
    elements = driver.find_elements(By.CSS_SELECTOR, selector)
    return elements[0] if elements and elements[0].is_displayed() else None


def chunk_map(driver):
    canvas = driver.find_element(By.ID, "chunk-map")
    return {key: canvas.get_attribute(f"data-{key}") for key in ("done", "total", "states", "cell", "columns")}


def run(driver, args, shots, handshake, seen):
    # Nothing is shown without a token: the login form.
    driver.get(args.base + "/")
    wait(driver, "the login form", lambda d: visible(d, "#login-view"))
    shot(driver, shots, "01-login.png", seen)
    driver.find_element(By.ID, "token").send_keys("farm_wrong")
    driver.find_element(By.ID, "login").click()
    wait(driver, "the refusal", lambda d: "unknown or revoked" in d.find_element(By.ID, "login-error").text)
    driver.find_element(By.ID, "token").clear()
    driver.find_element(By.ID, "token").send_keys(args.token)
    driver.find_element(By.ID, "login").click()
    wait(driver, "the job in the list", lambda d: visible(d, f'#jobs tr[data-job="{args.job}"]'))
    # The cookie holds a session's id, never the token, and scripts cannot read it.
    cookie = driver.get_cookie("farm_session")
    assert cookie and cookie["httpOnly"] and cookie["value"].startswith("session_"), cookie
    assert args.token not in cookie["value"]
    assert "farm_session" not in driver.execute_script("return document.cookie")
    shot(driver, shots, "02-jobs.png", seen)

    driver.get(f"{args.base}/#/jobs/{args.job}")
    wait(driver, "the chunk map", lambda d: int(chunk_map(d)["total"] or 0) > 0)
    before = chunk_map(driver)
    seen["chunks"] = int(before["total"])
    seen["doneBefore"] = int(before["done"])
    percent_before = float(driver.find_element(By.ID, "job-progress").get_attribute("data-percent"))
    (handshake / "start-workers").touch()

    # Live: the map and the bar move without a reload.
    states = set()
    def partway(d):
        now = chunk_map(d)
        states.add(now["states"])
        # The audio blocks count in the map but not in the frames: wait for a video chunk too.
        percent = float(d.find_element(By.ID, "job-progress").get_attribute("data-percent"))
        return 0 < int(now["done"]) < int(now["total"]) and percent > percent_before
    wait(driver, "some chunks done and the progress moved", partway)
    seen["percentPartway"] = float(driver.find_element(By.ID, "job-progress").get_attribute("data-percent"))
    shot(driver, shots, "03-rendering.png", seen)
    wait(driver, "the job to finish", lambda d: d.find_element(By.ID, "job-state").text == "done", timeout=300)
    states.add(chunk_map(driver)["states"])
    seen["mapStatesSeen"] = len(states)
    seen["doneAfter"] = int(chunk_map(driver)["done"])

    # A hover names the chunk; a click shows its attempts and log lines.
    canvas = driver.find_element(By.ID, "chunk-map")
    cell = int(chunk_map(driver)["cell"])
    size = canvas.size
    ActionChains(driver).move_to_element_with_offset(
        canvas, -size["width"] // 2 + cell // 2, -size["height"] // 2 + cell // 2).perform()
    tip = wait(driver, "the chunk's tooltip", lambda d: visible(d, "#chunk-tip"))
    seen["tooltip"] = tip.text
    assert tip.text.startswith("chunk 0, frames 0–"), tip.text
    ActionChains(driver).click().perform()
    wait(driver, "the chunk's log", lambda d: "attempt 1 on w1" in d.find_element(By.ID, "chunk-log").text)
    seen["log"] = driver.find_element(By.ID, "chunk-log").text
    assert "done" in seen["log"], seen["log"]

    # Thumbnails that the worker made, shown once the chunks are done; the rate plot.
    wait(driver, "a thumbnail", lambda d: d.execute_script(
        "return [...document.querySelectorAll('#thumbnails img')].filter(i => i.naturalWidth > 0).length") > 0)
    seen["thumbnailWidth"] = driver.execute_script(
        "return document.querySelector('#thumbnails img').naturalWidth")
    seen["ratePoints"] = int(driver.find_element(By.ID, "rate-plot").get_attribute("data-points"))
    assert seen["ratePoints"] > 0
    driver.execute_script("document.querySelector('#chunk-detail').scrollIntoView()")
    shot(driver, shots, "04-chunk-log.png", seen)
    driver.execute_script("document.querySelector('#thumbnails').scrollIntoView()")
    shot(driver, shots, "05-thumbnails.png", seen)

    # Workers: drained from the page.
    driver.get(f"{args.base}/#/workers")
    button = wait(driver, "the worker's row", lambda d: visible(d, 'tr[data-worker="w1"] button'))
    assert button.text == "Drain", button.text
    button.click()
    wait(driver, "the worker drained", lambda d: visible(d, 'tr[data-worker="w1"] button[data-action="undrain"]'))
    shot(driver, shots, "06-workers.png", seen)

    # The coordinator stops: the page says so.
    driver.get(f"{args.base}/#/jobs/{args.job}")
    wait(driver, "the job page", lambda d: d.find_element(By.ID, "job-state").text == "done")
    (handshake / "stop-coordinator").touch()
    banner = wait(driver, "the coordinator-down banner", lambda d: visible(d, "#banner"), timeout=60)
    seen["banner"] = banner.text
    assert banner.text.startswith("Coordinator down"), banner.text
    shot(driver, shots, "07-coordinator-down.png", seen)


if __name__ == "__main__":
    try:
        main()
    finally:
        # Tells the test to stop waiting, whatever happened.
        folder = sys.argv[sys.argv.index("--handshake") + 1]
        (pathlib.Path(folder) / "finished").touch()
