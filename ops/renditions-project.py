#!/usr/bin/env python3
"""Writes a project for ops/bench-renditions.sh: KIND LENGTH RENDITIONS-JSON > project.json.

bare: two clips and a picture-in-picture with an opacity ramp over music, the least a ladder
saves on (one decode of two files, two layers, nothing else composited).
edited: what an edited programme holds over the same length: a cut every 10 s across three
sources, each cut a 1 s dissolve, a picture-in-picture that moves on eased keyframes, a
lower-third title every 20 s, and a grade on the output (a CDL and a 33-point .cube look).
"""
import json
import sys

kind, length, renditions = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
export = {"video": {"codec": "h264", "preset": "veryfast"}, "renditions": renditions}
output = {"width": 1920, "height": 1080, "fps": "30"}
music = {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": str(length)}]}
assets = {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "c": {"path": "c.mp4"}, "music": {"path": "music.wav"}}

if kind == "bare":
    del assets["c"]
    tracks = [
        {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": str(length)}]},
        {"kind": "video", "items": [{
            "asset": "b", "at": "2", "duration": str(length - 4), "frame": [0.6, 0.6, 0.35, 0.35],
            "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
        music,
    ]
elif kind == "edited":
    cut = 10
    # Each shot starts 1 s into its media and the media runs on past it: every dissolve has
    # handles on both sides.
    shots = [{"asset": "abc"[i % 3], "at": str(i * cut), "duration": str(cut),
              "source": {"start": str(1 + (i * 7) % 40)}} for i in range(length // cut)]
    dissolves = [{"between": [i, i + 1], "type": "dissolve", "duration": "1"} for i in range(len(shots) - 1)]
    pip = {"asset": "b", "at": "2", "duration": str(length - 4), "frame": [0.62, 0.06, 0.32, 0.32],
           "source": {"start": "3"},
           "position": {"keys": [["0", [0, 0]], [str((length - 4) // 2), [-0.5, 0.5], "ease-in-out"],
                                 [str(length - 4), [0, 0], "ease-in-out"]]},
           "opacity": {"keys": [["0", 0], ["1", 0.9, "ease-out"]]}}
    titles = [{"title": {"text": f"Part {n + 1}\nan edited programme", "size": 44, "align": "left",
                         "background": {"color": "#101820", "opacity": 0.7, "padding": 14}},
               "at": str(n * 20 + 3), "duration": "5", "frame": [0.05, 0.72, 0.5, 0.2],
               "opacity": {"keys": [["0", 0], ["0.5", 1], ["4.5", 1], ["5", 0]]}}
              for n in range(length // 20)]
    tracks = [{"kind": "video", "items": shots, "transitions": dissolves},
              {"kind": "video", "items": [pip]},
              {"kind": "video", "items": titles},
              music]
    output["grade"] = {"cdl": {"slope": [1.06, 1.0, 0.94], "offset": [0.0, 0.005, 0.012],
                               "power": [1.0, 1.0, 1.05], "saturation": 0.92},
                       "lut": "look.cube"}
else:
    sys.exit(f"unknown project kind {kind!r}: bare or edited")

json.dump({"output": output, "export": export, "assets": assets, "tracks": tracks}, sys.stdout, indent=1)
print()
