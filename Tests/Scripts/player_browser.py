"""Plays a farm's HLS output and a render's live preview in the dashboard's own player, in
headless Chromium (PlayerBrowserTests).

The Swift test runs the farm. This script logs in with --token, opens job --package (a done HLS
job) and plays its first rendition through the page's Media Source Extensions player from start
to end; then writes `start-workers` in --handshake and opens job --live, whose chunks are then
accepted, and reads how far the preview's buffered end reaches while the job is paused part way
(--handshake's `paused` holds the seconds of chunks accepted by then) and once it is done.
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

        # The live preview: its end read while the job is paused part way (the test pauses it
        # once some chunks are accepted), then again once the rest are in.
        driver.get(f"{args.base}/#/jobs/{args.live}")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            f"return document.querySelector('#job-title').textContent.startsWith('Job {args.live}:')"))
        pathlib.Path(args.handshake, "start-workers").touch()
        WebDriverWait(driver, 300).until(lambda d: pathlib.Path(args.handshake, "paused").exists())
        accepted = float(pathlib.Path(args.handshake, "paused").read_text())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(READ)["bufferedEnd"] - d.execute_script(
            READ)["bufferedStart"] >= accepted - 0.01)
        time.sleep(2)
        paused = driver.execute_script(READ)
        # A finished part is seekable, and the chunk map outlines the chunk at the playhead:
        # 1.25 s into the preview is frame 37, in chunk 2 (frames 30 to 45).
        driver.execute_script("const v = document.querySelector('#player'); v.pause(); "
                              "v.currentTime = v.buffered.start(0) + 1.25;")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(READ)["playhead"] >= 0)
        seeked = driver.execute_script(READ)
        pathlib.Path(args.handshake, "resume").touch()
        WebDriverWait(driver, 300).until(lambda d: d.execute_script(READ)["state"] == "done")
        WebDriverWait(driver, 60).until(lambda d: "so far" not in d.execute_script(READ)["status"])
        done = driver.execute_script(READ)
        seen["live"] = {"accepted": accepted, "paused": paused, "seeked": seeked, "done": done}
    finally:
        driver.quit()
        pathlib.Path(args.handshake, "finished").touch()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
