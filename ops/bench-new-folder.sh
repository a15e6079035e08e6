#!/usr/bin/env bash
# The bar project (ops/bench-bar.sh, which makes its media) rendered by `farm render --no-cache`
# into a data folder used before, into a new one while the machine's cluster template exists, and
# into a new one with no template (the machine's first: initdb, then the copy), rounds
# alternating (ROUNDS, default 5); prints each time and the differences from the warm folder.
# Root: it removes the template in /var/cache/farm between rounds (run as another user, it
# removes the one in ~/.cache/farm).
set -euo pipefail
cd "$(dirname "$0")/.."

farm="$(bash ops/build-release.sh farm farm-worker)/farm"
dir="${BENCH_DIR:-.build/bench-bar}"
[[ -s "$dir/bar.json" ]] || ROUNDS=1 bash ops/bench-bar.sh >/dev/null
source ops/bench-common.sh
templates=/var/cache/farm
[[ $(id -u) == 0 ]] || templates="${XDG_CACHE_HOME:-$HOME/.cache}/farm"
work="$dir/new-folder"
rm -rf "$work"
mkdir -p "$work"
render() { "$farm" render "$dir/bar.json" -o "$work/out.mp4" --data "$1" --no-cache >/dev/null 2>&1; }
render "$work/warm"

rounds="${ROUNDS:-5}"
for ((round = 1; round <= rounds; round++)); do
    start=$(now)
    render "$work/warm"
    warm=$(elapsed "$start")
    rm -rf "$work/new"
    start=$(now)
    render "$work/new"
    new=$(elapsed "$start")
    rm -rf "$work/first" "$templates"/postgres-cluster-*
    start=$(now)
    render "$work/first"
    first=$(elapsed "$start")
    awk -v r="$round" -v w="$warm" -v n="$new" -v f="$first" 'BEGIN {
        printf "round %d: warm folder %.2f s; new folder %.2f s (%+.2f); new folder, no template %.2f s (%+.2f)\n",
            r, w, n, n - w, f, f - w
    }'
done
