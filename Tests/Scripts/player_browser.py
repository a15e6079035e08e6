"""Plays a farm's HLS output and a render's live preview in the dashboard's own player, in
headless Chromium (PlayerBrowserTests).

The Swift test runs the farm. This script logs in with --token, opens job --package (a done HLS
job) and plays its first rendition through the page's Media Source Extensions player from start
to end; then writes `start-workers` in --handshake and opens job --live, whose chunks are then
accepted one by one, and reads how far the preview's buffered end reaches while the job runs.
What it saw goes to standard output as JSON; a check that cannot be made raises.
"""
import argparse
import json
import pathlib
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

READ = """
const v = document.querySelector('#player');
const b = v.buffered;
return {readyState: v.readyState, currentTime: v.currentTime, duration: v.duration, ended: v.ended,
        width: v.videoWidth, height: v.videoHeight, bufferedEnd: b.length ? b.end(b.length - 1) : 0,
        bufferedStart: b.length ? b.start(0) : 0, ranges: b.length, error: v.error ? v.error.code : null,
        status: document.querySelector('#player-status').textContent,
        playhead: Number(document.querySelector('#chunk-map').dataset.playhead),
        state: document.querySelector('#job-state').textContent,
        hidden: document.querySelector('#job-player').hidden,
        renditions: [...document.querySelectorAll('#player-rendition option')].map(o => o.textContent)};
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--package", type=int, required=True)
    parser.add_argument("--live", type=int, required=True)
    parser.add_argument("--handshake", required=True)
    args = parser.parse_args()
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                     "--autoplay-policy=no-user-gesture-required"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    seen = {}
    try:
        driver.get(f"{args.base}/#token={args.token}")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return !document.querySelector('#jobs-view').hidden"))

        # The package: its first rendition from its first frame to its end.
        driver.get(f"{args.base}/#/jobs/{args.package}")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(READ)["readyState"] >= 2)
        first = driver.execute_script(READ)
        time.sleep(1.5)
        second = driver.execute_script(READ)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(READ)["ended"])
        last = driver.execute_script(READ)
        seen["package"] = {"first": first, "second": second, "last": last}

        # The live preview: its end read while the job renders.
        driver.get(f"{args.base}/#/jobs/{args.live}")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            f"return document.querySelector('#job-title').textContent.startsWith('Job {args.live}:')"))
        pathlib.Path(args.handshake, "start-workers").touch()
        ends, states, playheads = [], [], []
        deadline = time.time() + 240
        while time.time() < deadline:
            now = driver.execute_script(READ)
            if now["state"] == "running":
                ends.append(now["bufferedEnd"])
                playheads.append(now["playhead"])
            states.append(now["state"])
            if now["state"] in ("done", "failed", "cancelled"):
                break
            time.sleep(0.5)
        seen["live"] = {"endsWhileRunning": ends, "states": sorted(set(states)), "playheads": sorted(set(playheads)),
                        "last": driver.execute_script(READ)}
    finally:
        driver.quit()
        pathlib.Path(args.handshake, "finished").touch()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
