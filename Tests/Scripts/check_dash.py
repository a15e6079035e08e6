#!/usr/bin/env python3
"""Validates the DASH manifest beside an HLS package against ISO/IEC 23009-1's live profile
and against the files it names.

The checks: the MPD's root (namespace, static type, the live profile, durations as
xs:duration); every Representation's required attributes (id, bandwidth, codecs; width,
height and frameRate for video; audioSamplingRate and an AudioChannelConfiguration for sound);
a SegmentTemplate with a SegmentTimeline whose segments follow one another from 0 and whose
initialization and numbered media files all exist; the timeline's length equal to
mediaPresentationDuration (video exactly, sound within one segment's audio frame); bandwidth
at least every segment's bit rate; width, height, frame rate and codec profile equal to what
ffprobe reads from the segments; video segments aligned across representations. Then ffmpeg's
dash demuxer plays the manifest: each video representation's decoded frames (framemd5) equal
the same rendition's through its HLS media playlist, and the sound decodes whole.

Usage: check_dash.py MANIFEST.mpd  -> one line per representation, exit 0; a problem: exit 1.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

NS = {"d": "urn:mpeg:dash:schema:mpd:2011"}
DURATION = re.compile(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$")
problems = []


def problem(text):
    problems.append(text)


def seconds(text):
    match = DURATION.match(text or "")
    if not match or text == "PT":
        problem(f"not an xs:duration: {text!r}")
        return 0.0
    h, m, s = match.groups()
    return int(h or 0) * 3600 + int(m or 0) * 60 + float(s or 0)


def local(template, number=None):
    """The file a template names: $Number%05d$ filled, $$ a dollar, percent-decoded."""
    if number is not None:
        template = template.replace("$Number%05d$", "%05d" % number)
    return urllib.parse.unquote(template.replace("$$", "$"))


def probe(files):
    with tempfile.NamedTemporaryFile(suffix=".mp4") as out:
        for name in files:
            with open(name, "rb") as handle:
                out.write(handle.read())
        out.flush()
        result = subprocess.run(
            ["ffprobe", "-v", "error", "-show_streams", "-of", "json", out.name], capture_output=True, text=True)
    streams = json.loads(result.stdout or "{}").get("streams", [])
    return streams[0] if streams else {}


def frames(arguments):
    result = subprocess.run(["ffmpeg", "-v", "error"] + arguments + ["-f", "framemd5", "-"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        problem(f"ffmpeg {' '.join(arguments)}: {result.stderr.strip()[:300]}")
    return [line.split(",")[-1].strip() for line in result.stdout.splitlines() if line and not line.startswith("#")]


def main(manifest):
    folder = os.path.dirname(os.path.abspath(manifest))
    root = ET.parse(manifest).getroot()
    if root.tag != "{urn:mpeg:dash:schema:mpd:2011}MPD":
        problem(f"root is {root.tag}, not the 2011 schema's MPD")
    if root.get("type") != "static":
        problem("type is not static (a finished package)")
    if "urn:mpeg:dash:profile:isoff-live:2011" not in (root.get("profiles") or "").split(","):
        problem("profiles does not name isoff-live:2011 (SegmentTemplate)")
    total = seconds(root.get("mediaPresentationDuration"))
    seconds(root.get("minBufferTime"))
    periods = root.findall("d:Period", NS)
    if len(periods) != 1:
        problem(f"{len(periods)} periods, one expected")
    video_timelines = []
    lines = []
    for adaptation in root.iter("{urn:mpeg:dash:schema:mpd:2011}AdaptationSet"):
        kind = adaptation.get("contentType")
        if kind not in ("video", "audio") or adaptation.get("mimeType") != f"{kind}/mp4":
            problem(f"adaptation set {adaptation.get('id')}: contentType {kind}, mimeType {adaptation.get('mimeType')}")
        for rep in adaptation.findall("d:Representation", NS):
            name = rep.get("id")
            for key in ["id", "bandwidth", "codecs"] + (["width", "height", "frameRate"] if kind == "video"
                                                        else ["audioSamplingRate"]):
                if not rep.get(key):
                    problem(f"{name}: no {key}")
            if kind == "audio" and rep.find("d:AudioChannelConfiguration", NS) is None:
                problem(f"{name}: no AudioChannelConfiguration")
            template = rep.find("d:SegmentTemplate", NS)
            if template is None or template.find("d:SegmentTimeline", NS) is None:
                problem(f"{name}: no SegmentTemplate with a SegmentTimeline")
                continue
            timescale = int(template.get("timescale"))
            number = int(template.get("startNumber", "1"))
            init = os.path.join(folder, local(template.get("initialization")))
            if not os.path.isfile(init):
                problem(f"{name}: initialization {init} is missing")
            media, start, peak, segments = [], 0, 0.0, []
            for s in template.find("d:SegmentTimeline", NS).findall("d:S", NS):
                t, d = int(s.get("t", start)), int(s.get("d"))
                if t != start:
                    problem(f"{name}: segment at {t} after one ending at {start}")
                path = os.path.join(folder, local(template.get("media"), number))
                if not os.path.isfile(path):
                    problem(f"{name}: {path} is missing")
                else:
                    peak = max(peak, os.path.getsize(path) * 8 / (d / timescale))
                    media.append(path)
                segments.append((t, d))
                start, number = t + d, number + 1
            length = start / timescale
            slack = 0.0 if kind == "video" else 2048 / timescale
            if abs(length - total) > slack + 0.0005:
                problem(f"{name}: the timeline lasts {length:.6f} s, the presentation {total:.6f} s")
            if int(rep.get("bandwidth", 0)) < int(peak):
                problem(f"{name}: bandwidth {rep.get('bandwidth')} below a segment's {int(peak)} bit/s")
            stream = probe([init] + media[:1]) if media else {}
            if kind == "video":
                video_timelines.append((name, [(t / timescale, d / timescale) for t, d in segments]))
                for key in ("width", "height"):
                    if str(stream.get(key)) != rep.get(key):
                        problem(f"{name}: {key} {rep.get(key)}, the segments' {stream.get(key)}")
                if stream.get("r_frame_rate") != rep.get("frameRate") and \
                        f"{rep.get('frameRate')}/1" != stream.get("r_frame_rate"):
                    problem(f"{name}: frameRate {rep.get('frameRate')}, the segments' {stream.get('r_frame_rate')}")
                if not rep.get("codecs", "").startswith(stream.get("codec_tag_string", "?")):
                    problem(f"{name}: codecs {rep.get('codecs')}, the segments' {stream.get('codec_tag_string')}")
                playlist = os.path.join(os.path.dirname(init), "index.m3u8")
                index = len(video_timelines) - 1
                through_dash = frames(["-i", manifest, "-map", f"0:v:{index}"])
                through_hls = frames(["-i", playlist, "-map", "0:v:0"])
                if not through_dash or through_dash != through_hls:
                    problem(f"{name}: {len(through_dash)} frames through the MPD differ from the HLS playlist's "
                            f"{len(through_hls)}")
                lines.append(f"{name}: {rep.get('width')}x{rep.get('height')}, {len(segments)} segments, "
                             f"bandwidth {rep.get('bandwidth')}, {len(through_dash)} frames = HLS")
            else:
                if str(stream.get("sample_rate")) != rep.get("audioSamplingRate"):
                    problem(f"{name}: audioSamplingRate {rep.get('audioSamplingRate')}, the segments' "
                            f"{stream.get('sample_rate')}")
                sound = frames(["-i", manifest, "-map", "0:a:0"])
                if not sound:
                    problem(f"{name}: no sound decoded through the MPD")
                lines.append(f"{name}: {rep.get('audioSamplingRate')} Hz, {len(segments)} segments, "
                             f"bandwidth {rep.get('bandwidth')}")
    if not video_timelines:
        problem("no video representation")
    for name, timeline in video_timelines[1:]:
        if timeline != video_timelines[0][1]:
            problem(f"{name}: segments not aligned with {video_timelines[0][0]}'s")
    print("\n".join(lines))
    if problems:
        print("\n".join(f"problem: {text}" for text in problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
