#!/usr/bin/env bash
# Re-rendering what an edit changed: a 10-minute project at 640x360 (two clips, a
# picture-in-picture, music, and titles every minute), rendered whole by `farm render` on its
# embedded farm (one worker per core, 2-second chunks); then the same with one title's text
# changed (a 4-second span in the middle); then again unchanged. Prints each time, how many
# chunks a worker rendered, the ratios, and whether the re-render's decoded frames and sound
# equal a full `--no-cache` render of the edited project.
#   MINUTES=2 SIZE=352x288 EDIT=opacity CHUNK_SECONDS= bash ops/bench-rerender.sh
# makes it 2 minutes at 352x288 with the middle title's opacity edited instead, chunked as
# `farm render` picks.
set -euo pipefail
cd "$(dirname "$0")/.."

# FARM_BIN: a folder holding another build's farm and farm-worker (to compare two builds).
farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-rerender}"
mkdir -p "$dir"
source ops/bench-common.sh
minutes="${MINUTES:-10}" size="${SIZE:-640x360}" edit="${EDIT:-text}" chunk="${CHUNK_SECONDS-2}"
seconds=$((minutes * 60)) half=$((minutes * 30))
width="${size%x*}" height="${size#*x}"
make "a-$size-$minutes.mp4" -f lavfi -i "testsrc2=size=$size:rate=30:duration=$((seconds + 1))" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make "b-$size-$minutes.mp4" -f lavfi -i "testsrc=size=$size:rate=30:duration=$((seconds + 1))" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make "music-$minutes.wav" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((seconds + 1))" -ac 2

project() { # VERSION(1|2) OUTPUT: version 2 has the middle title's text or opacity edited
    local titles="" minute text="Halfway" opacity=1
    for ((minute = 0; minute < minutes; minute++)); do
        ((minute == minutes / 2)) && continue
        titles+="{\"title\": {\"text\": \"Minute $minute\", \"size\": 0.12}, \"at\": \"$((minute * 60 + 10))\", \"duration\": \"4\"},"
    done
    if [[ $1 == 2 && $edit == text ]]; then text="Half way there"; fi
    if [[ $1 == 2 && $edit == opacity ]]; then opacity=0.8; fi
    titles+="{\"title\": {\"text\": \"$text\", \"size\": 0.12}, \"at\": \"$((half - 2))\", \"duration\": \"4\", \"opacity\": $opacity}"
    cat > "$2" <<JSON
{
  "output": {"width": $width, "height": $height, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
  "export": {"container": "mp4", "video": {"codec": "h264", "crf": 22, "preset": "veryfast"}},
  "assets": {"a": {"path": "a-$size-$minutes.mp4"}, "b": {"path": "b-$size-$minutes.mp4"},
             "music": {"path": "music-$minutes.wav"}},
  "tracks": [
    {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "$half"},
                                {"asset": "b", "at": "$half", "duration": "$half", "source": {"start": "0"}}]},
    {"kind": "video", "items": [{"asset": "b", "at": "0", "duration": "$seconds", "frame": [0.65, 0.05, 0.3, 0.3]}]},
    {"kind": "video", "items": [$titles]},
    {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "$seconds", "volume": 0.5}]}
  ]
}
JSON
}
project 1 "$dir/v1.json"
project 2 "$dir/v2.json"

data="$dir/farm"
rm -rf "$data" "$dir"/out-*.mp4
run() { # NAME PROJECT [ARGS]: prints seconds
    local start
    start=$(now)
    "$farm" render "$2" -o "$dir/out-$1.mp4" --data "$data" ${chunk:+--chunk-seconds "$chunk"} --no-dashboard "${@:3}" \
        >"$dir/$1.log" 2>"$dir/$1.err"
    elapsed "$start"
}
newest() { "$farm" status --data "$data" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[0]$1)"; }
# Chunks a worker rendered (not reused) in the newest job, from the farm's own database.
rendered() { "$farm" logs "$(newest '["id"]')" --data "$data" --json \
    | python3 -c 'import json,sys; print(sum(1 for a in json.load(sys.stdin) if a["outcome"] == "done"))'; }
# The newest job's farm time: from its submission to its file written.
farm_time() {
    "$farm" status --data "$data" --json | python3 -c '
import datetime, json, sys
job = json.load(sys.stdin)[0]
when = lambda text: datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
print(round((when(job["finishedAt"]) - when(job["submittedAt"])).total_seconds(), 3))'
}

full=$(run full "$dir/v1.json"); full_rendered=$(rendered)
edited=$(run edit "$dir/v2.json"); edit_rendered=$(rendered)
edit_trace=$("$farm" trace "$(newest '["id"]')" --data "$data" || true)
same=$(run same "$dir/v2.json"); same_rendered=$(rendered); same_farm=$(farm_time)
fresh=$(run fresh "$dir/v2.json" --no-cache); fresh_rendered=$(rendered)

hashes() { ffmpeg -hide_banner -nostdin -v error -i "$1" -map 0:v -f framemd5 - | grep -v '^#' | md5sum | cut -c1-12; }
audio() { ffmpeg -hide_banner -nostdin -v error -i "$1" -map 0:a -f md5 - | cut -c5-16; }
echo "full render:          ${full} s ($full_rendered chunks and blocks rendered)"
echo "one title edited ($edit): ${edited} s ($edit_rendered rendered)"
echo "unchanged re-submit:  ${same} s ($same_rendered rendered; farm time, submitted to written: ${same_farm} s)"
echo "edited, --no-cache:   ${fresh} s ($fresh_rendered rendered)"
awk "BEGIN { printf \"edit / full: %.3f  unchanged / full: %.3f\n\", $edited / $full, $same / $full }"
if [[ "$(hashes "$dir/out-edit.mp4")/$(audio "$dir/out-edit.mp4")" == \
      "$(hashes "$dir/out-fresh.mp4")/$(audio "$dir/out-fresh.mp4")" ]]; then
    echo "edited re-render == full render of the edit (decoded frames and sound): yes"
else
    echo "edited re-render == full render of the edit (decoded frames and sound): NO"
fi
echo "the edit's trace:"
echo "$edit_trace"
