#!/usr/bin/env bash
# Benchmark, release build: a 10-minute programme's sound (speech at two levels, music under it
# and alone, a kick drum the limiter must catch) in audio blocks with no loudness target (the
# baseline), then to EBU R128: the loudness passes (every block measured, then measured through
# the limiter while it acts) and the encode with the gain and the limiter, in one invocation.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm-bench)"

dir="${BENCH_DIR:-.build/bench}"
mkdir -p "$dir"
source ops/bench-common.sh
make loudness-speech.wav -f lavfi -i "aevalsrc='0.5*(random(0)*2-1)*pow(sin(2*PI*2*t),2)*gt(sin(2*PI*0.23*t),-0.4)':s=48000:d=600,highpass=f=150,lowpass=f=3800,aformat=channel_layouts=stereo"
make loudness-music.wav -f lavfi -i "aevalsrc='0.06*sin(2*PI*220*t)+0.05*sin(2*PI*277.2*t)+0.04*sin(2*PI*329.6*t)+0.85*exp(-30*mod(t,0.5))*sin(2*PI*70*mod(t,0.5))|0.06*sin(2*PI*221*t)+0.05*sin(2*PI*330*t)+0.8*exp(-30*mod(t,0.5))*sin(2*PI*70*mod(t,0.5))':s=48000:d=600"
python3 - "$dir/loudness.json" <<'PY'
import json, sys
speech = [{"asset": "speech", "at": str(m * 60), "duration": "40", "source": {"start": str(m * 60)},
           "volume": 0.12 if m % 2 == 0 else 0.4} for m in range(10)]
music = [{"asset": "music", "at": str(m * 60 + 20), "duration": "40", "source": {"start": str(m * 60)},
          "volume": {"keys": [["0", 0.15], ["19", 0.15], ["20", 1 if m % 3 == 0 else 0.5]]}} for m in range(10)]
json.dump({"output": {"width": 64, "height": 36, "fps": "25"},
           "export": {"container": "mp4", "audio": {"codec": "aac", "loudness": "ebu-r128"}},
           "assets": {"speech": {"path": "loudness-speech.wav"}, "music": {"path": "loudness-music.wav"}},
           "tracks": [{"kind": "audio", "items": speech}, {"kind": "audio", "items": music}]},
          open(sys.argv[1], "w"))
PY

echo "== loudness: 10 minutes of sound to EBU R128, against no target"
"$bin/farm-bench" --loudness "$dir/loudness.json" "${1:-2}"
