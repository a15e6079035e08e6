#!/usr/bin/env python3
"""Validates an HLS package against RFC 8216 and against what its files hold.

The validator the renditions tests use: the master playlist's and each media playlist's tags
checked by the RFC's rules (required attributes, their types, a URI after every
EXT-X-STREAM-INF, audio and subtitles groups that exist, EXTINF within TARGETDURATION, ENDLIST
for VOD, an EXT-X-MAP that exists, subtitles playlists of WebVTT files), ffprobe reading every
variant, and the master's figures held to what the segments measure: RESOLUTION and FRAME-RATE to ffprobe's stream, CODECS' profile and
level to ffprobe's, BANDWIDTH to at least every segment's bit rate (the variant's plus its
audio's), AVERAGE-BANDWIDTH to all segments' bits over their seconds. Segments of every video
variant must cover the same times (aligned for switching).

Usage: check_hls.py MASTER.m3u8  -> prints one line per variant, exit 0; a problem: exit 1.
"""
import json
import os
import re
import subprocess
import sys

ATTRIBUTE = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')
PROFILES = {"Baseline": 66, "Constrained Baseline": 66, "Main": 77, "High": 100}
problems = []


def problem(text):
    problems.append(text)


def attributes(text):
    return {key: value for key, value in ATTRIBUTE.findall(text)}


def lines_of(path):
    with open(path, encoding="utf-8") as handle:
        lines = [line.rstrip("\n") for line in handle if line.strip()]
    if not lines or lines[0] != "#EXTM3U":
        problem(f"{path}: does not start with #EXTM3U")
    return lines


def probe(path, entries, stream="v"):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "json", path],
        capture_output=True, text=True)
    if out.returncode != 0:
        problem(f"{path}: ffprobe cannot read it: {out.stderr.strip()}")
        return {}
    return json.loads(out.stdout)


def media_playlist(path):
    """(segments as (seconds, bytes), target duration) of a media playlist, its rules checked."""
    lines = lines_of(path)
    folder = os.path.dirname(path)
    tags = [line.split(":", 1)[0] for line in lines if line.startswith("#EXT")]
    for required in ["#EXT-X-VERSION", "#EXT-X-TARGETDURATION", "#EXT-X-ENDLIST", "#EXT-X-MAP"]:
        if required not in tags:
            problem(f"{path}: no {required}")
    version = next((int(line.split(":")[1]) for line in lines if line.startswith("#EXT-X-VERSION:")), 0)
    if version < 6:
        problem(f"{path}: EXT-X-MAP without I-FRAMES-ONLY needs EXT-X-VERSION 6 or more (got {version})")
    if "#EXT-X-PLAYLIST-TYPE:VOD" not in lines:
        problem(f"{path}: not a VOD playlist")
    target = next((int(line.split(":")[1]) for line in lines if line.startswith("#EXT-X-TARGETDURATION:")), 0)
    for line in lines:
        if line.startswith("#EXT-X-MAP:"):
            uri = attributes(line[11:]).get("URI", "").strip('"')
            if not os.path.isfile(os.path.join(folder, uri)):
                problem(f"{path}: EXT-X-MAP URI {uri} is no file")
    segments, seconds = [], None
    for line in lines:
        if line.startswith("#EXTINF:"):
            seconds = float(line[8:].split(",")[0])
            if round(seconds) > target:
                problem(f"{path}: EXTINF {seconds} rounds past TARGETDURATION {target}")
        elif not line.startswith("#"):
            if seconds is None:
                problem(f"{path}: URI {line} without EXTINF")
                continue
            file = os.path.join(folder, line)
            if not os.path.isfile(file):
                problem(f"{path}: segment {line} is no file")
                continue
            segments.append((seconds, os.path.getsize(file)))
            seconds = None
    if not segments:
        problem(f"{path}: no segments")
    return segments


def subtitle_playlist(path):
    """The WebVTT files of a subtitles playlist, each checked to be one."""
    lines = lines_of(path)
    if "#EXT-X-ENDLIST" not in lines:
        problem(f"{path}: no #EXT-X-ENDLIST")
    files = [line for line in lines if not line.startswith("#")]
    for name in files:
        file = os.path.join(os.path.dirname(path), name)
        if not os.path.isfile(file):
            problem(f"{path}: {name} is no file")
        elif not open(file, encoding="utf-8").read().startswith("WEBVTT"):
            problem(f"{path}: {name} is not WebVTT")
    return files


def rates(segments):
    peak = max(bytes_ * 8 / seconds for seconds, bytes_ in segments)
    average = sum(bytes_ for _, bytes_ in segments) * 8 / sum(seconds for seconds, _ in segments)
    return peak, average


def main(master):
    lines = lines_of(master)
    folder = os.path.dirname(master)
    groups, subtitles = {}, {}
    for line in lines:
        if line.startswith("#EXT-X-MEDIA:"):
            media = attributes(line[13:])
            for required in ["TYPE", "GROUP-ID", "NAME"]:
                if required not in media:
                    problem(f"{master}: EXT-X-MEDIA without {required}")
            uri = media.get("URI", "").strip('"')
            if media.get("TYPE") == "SUBTITLES":
                subtitles[media.get("GROUP-ID", "").strip('"')] = subtitle_playlist(os.path.join(folder, uri))
            else:
                groups[media.get("GROUP-ID", "").strip('"')] = media_playlist(os.path.join(folder, uri))
    variants = []
    for index, line in enumerate(lines):
        if not line.startswith("#EXT-X-STREAM-INF:"):
            continue
        stream = attributes(line[18:])
        if index + 1 >= len(lines) or lines[index + 1].startswith("#"):
            problem(f"{master}: EXT-X-STREAM-INF without a URI after it")
            continue
        uri = lines[index + 1]
        path = os.path.join(folder, uri)
        for required in ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"]:
            if required not in stream:
                problem(f"{uri}: no {required}")
        segments = media_playlist(path)
        captions = stream.get("SUBTITLES", "").strip('"')
        if captions and captions not in subtitles:
            problem(f"{uri}: SUBTITLES group {captions} is not in the master")
        audio = stream.get("AUDIO", "").strip('"')
        if audio and audio not in groups:
            problem(f"{uri}: AUDIO group {audio} is not in the master")
        peak, average = rates(segments)
        if audio in groups:
            audio_peak, audio_average = rates(groups[audio])
            peak, average = peak + audio_peak, average + audio_average
        bandwidth = int(stream.get("BANDWIDTH", "0"))
        average_bandwidth = int(stream.get("AVERAGE-BANDWIDTH", "0"))
        if bandwidth + 1 < peak:
            problem(f"{uri}: BANDWIDTH {bandwidth} below the peak segment rate {peak:.0f}")
        if abs(average_bandwidth - average) > 2:
            problem(f"{uri}: AVERAGE-BANDWIDTH {average_bandwidth} is not the measured {average:.0f}")
        info = probe(path, "stream=width,height,profile,level,avg_frame_rate,nb_read_frames", "v")
        streams = info.get("streams", [])
        if not streams:
            problem(f"{uri}: ffprobe finds no video stream")
            continue
        video = streams[0]
        resolution = f'{video["width"]}x{video["height"]}'
        if stream.get("RESOLUTION") != resolution:
            problem(f"{uri}: RESOLUTION {stream.get('RESOLUTION')}, ffprobe reads {resolution}")
        num, den = (int(part) for part in video["avg_frame_rate"].split("/"))
        if abs(float(stream.get("FRAME-RATE", "0")) - num / den) > 0.0005:
            problem(f"{uri}: FRAME-RATE {stream.get('FRAME-RATE')}, ffprobe reads {video['avg_frame_rate']}")
        codecs = stream.get("CODECS", "").strip('"').split(",")
        avc = [codec for codec in codecs if codec.startswith("avc1.")]
        if avc:
            profile, level = int(avc[0][5:7], 16), int(avc[0][9:11], 16)
            if PROFILES.get(video.get("profile")) != profile or video.get("level") != level:
                problem(f"{uri}: CODECS {avc[0]}, ffprobe reads {video.get('profile')} level {video.get('level')}")
        if audio and not any(codec.startswith("mp4a.40.") for codec in codecs):
            problem(f"{uri}: CODECS {codecs} names no audio codec for its AUDIO group")
        variants.append((uri, [seconds for seconds, _ in segments], resolution, bandwidth))
    if not variants:
        problem(f"{master}: no variants")
    for uri, durations, _, _ in variants[1:]:
        if [round(d, 3) for d in durations] != [round(d, 3) for d in variants[0][1]]:
            problem(f"{uri}: segments {durations} not aligned with {variants[0][0]}'s {variants[0][1]}")
    for line in problems:
        print(line)
    if problems:
        return 1
    for uri, durations, resolution, bandwidth in variants:
        print(f"{uri}: {resolution}, {len(durations)} segments, BANDWIDTH {bandwidth}")
    for group, files in subtitles.items():
        print(f"subtitles {group}: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
