"""Drives the farm's dashboard in headless Chromium during a real render (DashboardBrowserTests).

The Swift test runs the farm; this script is the user at the browser. They talk through files in
--handshake: this script writes `start-workers`, `stop-coordinator` and `restart-coordinator`
when it wants the farm to move on, and `finished` at its end. What it saw goes to standard output
as JSON; any check that fails raises.

While the job renders, the page is read at two sizes, a desktop's 1280x800 and a phone's 390x844:
no horizontal overflow, the running-chunks table changing between two reads, the buttons an
operate token may use (and none for a read token), a chunk's attempts with their log lines, the
workers with a reachable Drain button and a worker's history; a screenshot of each.
"""
import argparse
import json
import pathlib
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import StaleElementReferenceException
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

SIZES = [(1280, 800), (390, 844)]
JOB_BUTTONS = ("pause", "resume", "cancel", "retry")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True, help="an operate token")
    parser.add_argument("--read-token", required=True)
    parser.add_argument("--job", type=int, required=True)
    parser.add_argument("--shots", required=True)
    parser.add_argument("--handshake", required=True)
    args = parser.parse_args()
    shots = pathlib.Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    handshake = pathlib.Path(args.handshake)

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    seen = {"screenshots": [], "sizes": {}}
    try:
        run(driver, args, shots, handshake, seen)
    finally:
        driver.quit()
    print(json.dumps(seen))


# MARK: Helpers

def shot(driver, shots, name, seen):
    driver.save_screenshot(str(shots / name))
    seen["screenshots"].append(name)


def wait(driver, what, condition, timeout=30):
    # The page rebuilds its tables on every refresh: an element found a moment ago may be gone.
    return WebDriverWait(
        driver, timeout, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]
    ).until(lambda d: condition(d), message=f"timed out waiting for {what}")


def visible(driver, selector):
    elements = driver.find_elements(By.CSS_SELECTOR, selector)
    return elements[0] if elements and elements[0].is_displayed() else None


def chunk_map(driver):
    canvas = driver.find_element(By.ID, "chunk-map")
    return {key: canvas.get_attribute(f"data-{key}") for key in ("done", "total", "states", "cell", "columns")}


def job_state(driver):
    return inner_text(driver, "#job-state")


def resize(driver, width, height):
    """The page at a device's size; a phone's (`mobile`) obeys the page's meta viewport."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def overflow(driver, width):
    """The page's width and the window's; the page must fit in the window at the size asked for."""
    scroll, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert inner == width, f"the window is {inner} wide, not {width}: the page made it zoom out"
    assert scroll <= inner, f"the page is {scroll} wide in a window of {inner}"
    return scroll


def shown_buttons(driver, scope="main"):
    """The data-action of every control button the user can see (read in one go: the page
    rebuilds its rows as it refreshes)."""
    return sorted(driver.execute_script("""
        return [...document.querySelectorAll(arguments[0] + " button[data-action]")]
          .filter((b) => b.getClientRects().length > 0 && getComputedStyle(b).visibility !== "hidden")
          .map((b) => b.dataset.action)""", scope))


def inner_text(driver, selector):
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''",
                                 selector)


def open_session(driver, token):
    """Logs the browser in with `token` as the login form does (its cookie replaces the other)."""
    answer = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch("/api/session", {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify({token: arguments[0]})})
          .then((r) => r.json()).then(done, (e) => done({error: String(e)}));""", token)
    assert "role" in answer, answer
    driver.refresh()
    return answer["role"]


def fresh(driver, what):
    """Waits for the page's next refresh from the server's answers (its `data-refreshes` count),
    so that nothing read next is left over from before a navigation or a resize."""
    count = "return Number(document.body.dataset.refreshes || 0)"
    before = driver.execute_script(count)
    wait(driver, what, lambda d: d.execute_script(count) > before, timeout=20)


def open_job(driver, args):
    driver.get(f"{args.base}/#/jobs/{args.job}")
    fresh(driver, "the job page")
    wait(driver, "the job page", lambda d: int(chunk_map(d)["total"] or 0) > 0 and job_state(d))


# MARK: The visit

def run(driver, args, shots, handshake, seen):
    log_in(driver, args, shots, seen)
    open_job(driver, args)
    before = chunk_map(driver)
    seen["chunks"] = int(before["total"])
    # No worker yet: the page says why nothing renders, and an operator may pause or cancel.
    waiting = wait(driver, "the waiting reason", lambda d: visible(d, "#job-waiting"))
    seen["waitingFor"] = waiting.text
    assert "no live worker" in waiting.text, waiting.text
    assert shown_buttons(driver, "#job-actions") == ["cancel", "pause"], shown_buttons(driver, "#job-actions")
    shot(driver, shots, "03-waiting.png", seen)
    (handshake / "start-workers").touch()

    states = {before["states"]}
    started = time.monotonic()
    # What needs a chunk rendering first, at both sizes; then a read token's view; then what needs
    # a finished chunk, at both sizes.
    for number, (width, height) in enumerate(SIZES):
        seen["sizes"][str(width)] = live_at(driver, args, shots, seen, width, height, 4 + number)
    read_only(driver, args, shots, seen)
    for number, (width, height) in enumerate(SIZES):
        found = seen["sizes"][str(width)]
        logs_and_workers_at(driver, args, shots, seen, width, height, 7 + 2 * number, found)
        states.add(found.pop("mapStates"))
    seen["secondsWhileRendering"] = round(time.monotonic() - started, 1)

    resize(driver, *SIZES[0])
    open_job(driver, args)
    wait(driver, "the job to finish", lambda d: job_state(d) == "done", timeout=300)
    final = chunk_map(driver)
    states.add(final["states"])
    seen["mapStatesSeen"] = len(states)
    seen["doneAfter"] = int(final["done"])
    # A done job has nothing to pause, resume, cancel or retry.
    assert shown_buttons(driver, "#job-actions") == [], shown_buttons(driver, "#job-actions")
    after_the_render(driver, args, shots, seen)
    coordinator_away_and_back(driver, args, shots, handshake, seen)


def log_in(driver, args, shots, seen):
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


def live_at(driver, args, shots, seen, width, height, number):
    """The job page at one size while the job renders: the running chunks change, the buttons an
    operate token may use on a running job, nothing wider than the window."""
    resize(driver, width, height)
    open_job(driver, args)
    found = {"width": width}
    rows = "#running-chunks tbody"
    wait(driver, "a running chunk", lambda d: d.find_elements(
        By.CSS_SELECTOR, f"{rows} tr[data-chunk] .state.running"), timeout=60)
    first = inner_text(driver, rows)
    # Live: the table changes without a reload while the job renders.
    wait(driver, "the running chunks to change", lambda d: inner_text(d, rows) != first, timeout=20)
    found["runningBefore"] = first.splitlines()[:8]
    found["runningAfter"] = inner_text(driver, rows).splitlines()[:8]
    found["jobState"] = job_state(driver)
    found["lostAttempts"] = driver.execute_script(
        "return [...document.querySelectorAll('#job-error-attempts tbody tr')].map(r => r.dataset.outcome)")
    assert found["jobState"] == "running", f"the job ended before the page was read at {width}: {found}"
    # An operate token on a running job: pause (not resume) and cancel; retry is for failed jobs.
    found["jobButtons"] = shown_buttons(driver, "#job-actions")
    assert found["jobButtons"] == ["cancel", "pause"], found
    assert visible(driver, "#priority-form"), "an operate token sets the priority"
    found["pageWidth"] = overflow(driver, width)
    shot(driver, shots, f"{number:02}-rendering-{width}.png", seen)
    return found


def logs_and_workers_at(driver, args, shots, seen, width, height, number, found):
    """At one size, still during the render: a finished chunk's attempts with their log lines,
    and the workers with a reachable Drain button and a worker's history."""
    resize(driver, width, height)
    open_job(driver, args)
    # A click on the first finished video chunk in the map shows its attempts and log lines.
    first_done = "return chunkMap ? chunkMap.video.states.indexOf('d') : -1"
    wait(driver, "a chunk done", lambda d: d.execute_script(first_done) >= 0, timeout=60)
    index = driver.execute_script(first_done)
    canvas = driver.find_element(By.ID, "chunk-map")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    cell = int(chunk_map(driver)["cell"]) * canvas.size["width"] / 960
    columns = int(chunk_map(driver)["columns"])
    x = -canvas.size["width"] / 2 + (index % columns + 0.5) * cell
    y = -canvas.size["height"] / 2 + (index // columns + 0.5) * cell
    opened = lambda d: visible(d, f'#chunk-detail[data-chunk="video {index}"] #chunk-log pre')
    # A click that lands while the live page redraws the map (on a loaded machine) is made
    # again: what is checked is the log it opens, not the first click's timing.
    for attempt in range(3):
        ActionChains(driver).move_to_element_with_offset(canvas, int(x), int(y)).click().perform()
        try:
            log = wait(driver, f"chunk {index}'s log", opened, timeout=10)
            break
        except TimeoutException:
            if attempt == 2:
                raise
    heading = inner_text(driver, "#chunk-log section:last-child h4")
    assert "on w1@vm → done" in heading, heading
    # Read in one script, as the heading is: the page's refresh may replace the element found
    # above (a stale reference on a loaded machine) with the same log.
    text = inner_text(driver, f'#chunk-detail[data-chunk="video {index}"] #chunk-log pre')
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines and not lines[0].startswith("(no log lines"), text
    found["logChunk"] = index
    found["logLines"] = len(lines)
    found["logSample"] = lines[:2]
    found["jobStateAtLog"] = job_state(driver)
    found["pageWidthWithLog"] = overflow(driver, width)
    found["mapStates"] = chunk_map(driver)["states"]
    driver.execute_script("document.querySelector('#chunk-detail').scrollIntoView()")
    shot(driver, shots, f"{number:02}-chunk-log-{width}.png", seen)

    # Workers: every column fits (a table scrolls in its box, or is cards), Drain can be reached,
    # and a worker's history lists its attempts.
    # A keyed worker's id, NAME@HOST: the page puts it in its paths percent-encoded.
    driver.get(f"{args.base}/#/workers/w1%40vm")
    fresh(driver, "the workers page")
    wait(driver, "the worker's Drain button", lambda d: visible(d, 'tr[data-worker="w1@vm"] button'))
    action, left, right = driver.execute_script("""
        const button = document.querySelector('tr[data-worker="w1@vm"] button');
        button.scrollIntoView({block: "center"});
        const r = button.getBoundingClientRect();
        return [button.dataset.action, r.left, r.right]""")
    assert action == "drain", action
    assert 0 <= left and right <= width, f"Drain lies at {left}..{right}, outside a window of {width}"
    history = wait(driver, "the worker's history",
                   lambda d: d.find_elements(By.CSS_SELECTOR, "#worker-attempts tbody tr"))
    found["historyRows"] = len(history)
    found["workerRow"] = inner_text(driver, 'tr[data-worker="w1@vm"]').splitlines()[:12]
    found["workersPageWidth"] = overflow(driver, width)
    found["favicon"] = driver.execute_script(
        "const icon = document.querySelector('link[rel=icon]');"
        " return !!icon && icon.href.startsWith('data:image/svg+xml')")
    driver.execute_script("window.scrollTo(0, 0)")
    shot(driver, shots, f"{number + 1:02}-workers-{width}.png", seen)


def read_only(driver, args, shots, seen):
    """A read token, while the job renders: the same pages with no control at all."""
    assert open_session(driver, args.read_token) == "read"
    open_job(driver, args)
    wait(driver, "the read-only badge", lambda d: visible(d, "#role"))
    wait(driver, "a running chunk", lambda d: d.find_elements(
        By.CSS_SELECTOR, "#running-chunks tbody tr[data-chunk] .state.running"), timeout=60)
    found = {"jobState": job_state(driver)}
    assert found["jobState"] == "running", found
    time.sleep(0.5)  # a refresh or two, which must not bring a button back
    found["jobButtons"] = shown_buttons(driver)
    assert found["jobButtons"] == [], found
    shot(driver, shots, "06-read-only.png", seen)
    driver.get(f"{args.base}/#/workers")
    wait(driver, "the worker's row", lambda d: visible(d, 'tr[data-worker="w1@vm"]'))
    found["workerButtons"] = shown_buttons(driver)
    assert found["workerButtons"] == [], found
    seen["readOnly"] = found
    assert open_session(driver, args.token) == "operate"


def after_the_render(driver, args, shots, seen):
    # A hover names the chunk; the rate plot has axes with units and tick labels.
    canvas = driver.find_element(By.ID, "chunk-map")
    cell = int(chunk_map(driver)["cell"])
    size = canvas.size
    ActionChains(driver).move_to_element_with_offset(
        canvas, -size["width"] // 2 + cell // 2, -size["height"] // 2 + cell // 2).perform()
    tip = wait(driver, "the chunk's tooltip", lambda d: visible(d, "#chunk-tip"))
    seen["tooltip"] = tip.text
    assert tip.text.startswith("chunk 0, frames 0–"), tip.text
    # Read in one script: the plot is drawn again on every refresh, so elements found one call
    # may be gone by the next.
    plot = driver.execute_script("""
        const p = document.getElementById("rate-plot");
        const texts = (selector) => [...p.querySelectorAll(selector)].map((t) => t.textContent);
        return {points: p.getAttribute("data-points"), aspect: p.getAttribute("preserveAspectRatio"),
                titles: texts("text.axis-title"), ticks: texts("text.tick")};
    """)
    seen["ratePoints"] = int(plot["points"])
    assert seen["ratePoints"] > 0
    assert plot["aspect"] is None, "the plot's text must not be stretched"
    titles, ticks = plot["titles"], plot["ticks"]
    assert "frames/s" in titles and len(ticks) >= 4, (titles, ticks)
    seen["rateTicks"] = ticks

    # The QC report the coordinator made from the output, once the job is done.
    qc = wait(driver, "the QC report", lambda d: visible(d, "#job-qc"))
    seen["qcVerdict"] = inner_text(driver, "#qc-verdict")
    seen["qcFacts"] = inner_text(driver, "#qc-facts")
    assert "Loudness" in seen["qcFacts"] and "LUFS" in seen["qcFacts"], seen["qcFacts"]
    assert "all continuous" in seen["qcFacts"], seen["qcFacts"]

    # Its trace: a row per worker render slot, a bar per render.
    wait(driver, "the trace", lambda d: visible(d, "#job-trace"))
    seen["traceRows"] = len(driver.find_elements(By.CSS_SELECTOR, "#trace-rows .trace-row"))
    seen["traceBars"] = len(driver.find_elements(By.CSS_SELECTOR, "#trace-rows .trace-bar"))
    seen["traceTail"] = inner_text(driver, "#trace-tail")

    # Thumbnails that the worker made, shown once the chunks are done.
    wait(driver, "a thumbnail", lambda d: d.execute_script(
        "return [...document.querySelectorAll('#thumbnails img')].filter(i => i.naturalWidth > 0).length") > 0)
    seen["thumbnailWidth"] = driver.execute_script(
        "return document.querySelector('#thumbnails img').naturalWidth")
    driver.execute_script("document.querySelector('#rate-plot').scrollIntoView()")
    shot(driver, shots, "11-rate-and-thumbnails.png", seen)

    # Workers: drained from the page.
    driver.get(f"{args.base}/#/workers")
    # The table is rebuilt on every refresh: the button is found, read and clicked in one try,
    # and clicked again while the row still offers Drain (a click on a row the refresh was
    # replacing reaches nothing), until the row offers Undrain.
    clicked = [0.0]
    def drained(d):
        if visible(d, 'tr[data-worker="w1@vm"] button[data-action="undrain"]') is not None:
            return True
        button = visible(d, 'tr[data-worker="w1@vm"] button')
        # Again only after the page had time to show the first click's answer.
        if button is not None and button.text == "Drain" and time.monotonic() - clicked[0] > 3:
            button.click()
            clicked[0] = time.monotonic()
        return False
    wait(driver, "the worker drained", drained)
    # The job is done: the worker renders nothing now, whatever its lifetime average.
    seen["workerFps"] = inner_text(driver, 'tr[data-worker="w1@vm"] [data-fps-now]')
    shot(driver, shots, "12-workers-drained.png", seen)


def coordinator_away_and_back(driver, args, shots, handshake, seen):
    # The coordinator stops: the page says so, and shows what it knew as no longer live.
    open_job(driver, args)
    wait(driver, "the job page", lambda d: job_state(d) == "done")
    # The finished job's segments are counted in the header as soon as it is done.
    wait(driver, "the header's segments", lambda d: (lambda t: t.endswith(" in 1 job")
         and not t.startswith("segments 0 B"))(d.find_element(By.ID, "farm-summary").text), timeout=10)
    seen["segmentsHeader"] = inner_text(driver, "#farm-summary")
    (handshake / "stop-coordinator").touch()
    banner = wait(driver, "the coordinator-down banner", lambda d: visible(d, "#banner"), timeout=60)
    wait(driver, "the stale page", lambda d: "stale" in d.find_element(By.TAG_NAME, "body").get_attribute("class"))
    seen["banner"] = banner.text
    assert banner.text.startswith("Coordinator down"), banner.text
    seen["staleState"] = job_state(driver)
    assert seen["staleState"] == "last known: done", seen["staleState"]
    assert not visible(driver, "#job-eta")
    shot(driver, shots, "13-coordinator-down.png", seen)
    # It comes back on the same address: the page refreshes by itself.
    (handshake / "restart-coordinator").touch()
    wait(driver, "the page live again", lambda d: not visible(d, "#banner") and "stale" not in (
        d.find_element(By.TAG_NAME, "body").get_attribute("class") or ""), timeout=60)
    assert job_state(driver) == "done", job_state(driver)
    shot(driver, shots, "14-coordinator-back.png", seen)


if __name__ == "__main__":
    try:
        main()
    finally:
        # Tells the test to stop waiting, whatever happened.
        folder = sys.argv[sys.argv.index("--handshake") + 1]
        (pathlib.Path(folder) / "finished").touch()
