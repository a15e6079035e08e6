"""Writes the 2-hour benchmark timeline: 720 cuts of 10 s at 192x108 alternating a.mp4 and
b.mp4 (made by bench-common.sh's long_timeline), and music under it with a volume ramp every
minute. Usage: long-timeline.py OUT.json GOP"""
import json
import sys

out, gop = sys.argv[1], int(sys.argv[2])
cuts = [{"asset": "a" if k % 2 == 0 else "b", "at": str(10 * k), "duration": "10",
         "source": {"start": str(k * 37 % 580)}} for k in range(720)]
music = [{"asset": "music", "at": str(600 * k), "duration": "600",
          "volume": {"keys": [[str(60 * m), 0.3 if m % 2 == 0 else 1.0] for m in range(11)]}} for k in range(12)]
project = {
    "output": {"width": 192, "height": 108, "fps": "30"},
    "export": {"container": "mp4", "video": {"codec": "h264", "preset": "veryfast", "crf": 23, "gop": gop},
               "audio": {"codec": "aac", "bitrate": 128000}},
    "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
    "tracks": [{"kind": "video", "items": cuts}, {"kind": "audio", "items": music}],
}
with open(out, "w") as f:
    json.dump(project, f)
