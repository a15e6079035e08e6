#!/usr/bin/env bash
# Line coverage of Sources/ by the test suite, per module. Builds everything with coverage in its
# own scratch path (.build-coverage, so the normal .build is left alone), runs the tests, and adds
# the profiles of the `farm` and `farm-worker` processes the end-to-end tests start to the test
# binary's own: most of the CLI, coordinator and worker code only ever runs in those children.
#
# Usage: ops/coverage.sh [swift test arguments, e.g. --filter FarmCoreTests]
# Without arguments it runs the module suites, then the end-to-end suites on their own (as
# ops/test.sh does). Prints one line per module and a total; the per-file table is left in
# .build-coverage/coverage-report.txt and the summary JSON in .build-coverage/coverage.json.
# Exits with the tests' status (the report is printed even when a test fails).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
scratch=.build-coverage
profiles=$scratch/profiles

find_tool() {
    local name=$1 swift_path candidate
    swift_path=$(command -v swift || true)
    for candidate in "/opt/swift/usr/bin/$name" ${swift_path:+"$(dirname "$(readlink -f "$swift_path")")/$name"}; do
        if [[ -x $candidate ]]; then
            echo "$candidate"
            return
        fi
    done
    if command -v "$name" >/dev/null; then
        command -v "$name"
        return
    fi
    echo "coverage: $name not found (looked in /opt/swift/usr/bin, beside swift, and on PATH)" >&2
    exit 1
}
llvm_cov=$(find_tool llvm-cov)
llvm_profdata=$(find_tool llvm-profdata)

swift build --build-tests --enable-code-coverage --scratch-path "$scratch"

bin=$scratch/debug
tests=$bin/farmPackageTests.xctest
for binary in "$tests" "$bin/farm" "$bin/farm-worker"; do
    if [[ ! -f $binary ]]; then
        echo "coverage: $binary was not built" >&2
        exit 1
    fi
    if ! LC_ALL=C grep -q __llvm_covmap "$binary"; then
        echo "coverage: $binary has no coverage mapping (built without --enable-code-coverage?)" >&2
        exit 1
    fi
done

# Where swift test writes the test binary's profiles (it empties that folder at the start of
# every run): the folder of the JSON --show-codecov-path names.
json_path=$(swift test --show-codecov-path --scratch-path "$scratch" </dev/null 2>/dev/null | tail -n 1 || true)
if [[ -n $json_path ]]; then
    codecov=$(dirname "$json_path")
else
    codecov=$bin/codecov
fi

rm -rf "$profiles"
mkdir -p "$profiles"
# Every instrumented process the tests start writes its own profile here, named by pid (%p) and
# binary (%m). swift test sets its own LLVM_PROFILE_FILE for the test process (into $codecov,
# also per pid), which the children then inherit; either way every profile is collected below.
export LLVM_PROFILE_FILE=$root/$profiles/%p-%m.profraw

limit=${FARM_TEST_MINUTES:-60}
status=0
run=0
run_tests() {
    run=$((run + 1))
    local result=0
    # Standard input is /dev/null, never closed (see ops/test.sh).
    timeout --kill-after=30 "${limit}m" \
        swift test --skip-build --enable-code-coverage --scratch-path "$scratch" "$@" </dev/null || result=$?
    if ((result == 124 || result == 137)); then
        echo "coverage: tests stopped after ${limit} minutes" >&2
    fi
    if ((status == 0)); then
        status=$result
    fi
    # Keep this run's raw profiles: the next swift test empties $codecov.
    if [[ -d $codecov ]]; then
        mkdir -p "$profiles/run-$run"
        find "$codecov" -maxdepth 1 -name '*.profraw' -exec mv -t "$profiles/run-$run" {} +
        if [[ -f $codecov/default.profdata ]]; then
            cp "$codecov/default.profdata" "$profiles/run-$run/default.profdata"
        fi
    fi
}
if (($#)); then
    run_tests "$@"
else
    run_tests --skip EndToEndTests
    run_tests --filter EndToEndTests
fi
unset LLVM_PROFILE_FILE

# Merge every raw profile: the test binary's and every child's. A run's default.profdata is the
# merge swift test made of that run's raw test-binary profiles (only when its tests passed), so
# it is used only for a run whose raw files are missing; merging both would count twice.
inputs=$scratch/profile-inputs.txt
find "$profiles" -name '*.profraw' -size +0 >"$inputs"
for folder in "$profiles"/run-*; do
    if [[ -f $folder/default.profdata ]] && ! compgen -G "$folder/*.profraw" >/dev/null; then
        echo "$folder/default.profdata" >>"$inputs"
    fi
done
if [[ ! -s $inputs ]]; then
    echo "coverage: the tests left no profiles in $profiles or $codecov" >&2
    exit 1
fi
merged=$scratch/coverage.profdata
# A process killed while writing leaves a damaged profile: skip it with a warning, fail only if
# nothing can be read.
"$llvm_profdata" merge -sparse --failure-mode=all --input-files="$inputs" -o "$merged"
echo "coverage: merged $(wc -l <"$inputs") profiles into $merged" >&2

objects=("$tests" -object "$bin/farm" -object "$bin/farm-worker")
if [[ -f $bin/farm-bench ]] && LC_ALL=C grep -q __llvm_covmap "$bin/farm-bench"; then
    objects+=(-object "$bin/farm-bench") # no test runs it; listed so Bench shows as uncovered
fi
# Only Sources/ counts: not the tests, not the dependencies in .build-coverage/checkouts.
ignore=(-ignore-filename-regex='/\.build[^/]*/' -ignore-filename-regex='/checkouts/'
    -ignore-filename-regex="^$root/Tests/")
"$llvm_cov" report -instr-profile="$merged" "${objects[@]}" "${ignore[@]}" >"$scratch/coverage-report.txt"
"$llvm_cov" export -summary-only -format=text -instr-profile="$merged" "${objects[@]}" "${ignore[@]}" \
    >"$scratch/coverage.json"

python3 - "$scratch/coverage.json" "$root" <<'EOF'
import json
import os
import sys

# Source folder -> module, in the order printed (Package.swift's targets).
MODULES = [
    ("Sources/Shared/Core", "FarmCore"),
    ("Sources/Shared/Media", "FarmMedia"),
    ("Sources/Shared/Text", "FarmText"),
    ("Sources/Shared/Render", "FarmRender"),
    ("Sources/Shared/Store", "FarmStore"),
    ("Sources/Shared/Wire", "FarmWire"),
    ("Sources/Coordinator/Server", "FarmCoordinator"),
    ("Sources/Coordinator/HTTP", "FarmHTTP"),
    ("Sources/Worker/Agent", "FarmWorker"),
    ("Sources/Coordinator/CLI", "FarmCLI"),
    ("Sources/Coordinator/Main", "FarmMain"),
    ("Sources/Worker/Main", "FarmWorkerMain"),
    ("Sources/Bench", "Bench"),
    ("Sources/CSpawn", "CSpawn"),
]

path, root = sys.argv[1], os.path.realpath(sys.argv[2])
with open(path, encoding="utf-8") as handle:
    export = json.load(handle)

totals = {name: [0, 0, 0] for _, name in MODULES}  # covered lines, lines, files
seen = set()
for data in export["data"]:
    for entry in data["files"]:
        filename = os.path.realpath(entry["filename"])
        relative = os.path.relpath(filename, root)
        if not relative.startswith("Sources/") or filename in seen:
            continue  # the regexes already leave out Tests/ and dependencies; this is a backstop
        seen.add(filename)
        lines = entry["summary"]["lines"]
        module = next((name for folder, name in MODULES if relative.startswith(folder + "/")), None)
        if module is None:  # a folder the table does not know (a C shim's header): its own line
            module = "/".join(relative.split("/")[:2])
            totals.setdefault(module, [0, 0, 0])
        totals[module][0] += lines["covered"]
        totals[module][1] += lines["count"]
        totals[module][2] += 1


def line(name, covered, count, files):
    percent = f"{100 * covered / count:6.2f}%" if count else "      -"
    print(f"{name:<18} {covered:>7} / {count:<7} {percent}   {files} files")


print(f"{'module':<18} {'covered':>7} / {'lines':<7} {'percent':>7}")
grand = [0, 0, 0]
for name, (covered, count, files) in totals.items():
    if files == 0:
        print(f"{name:<18} not in any measured binary")
        continue
    line(name, covered, count, files)
    grand = [grand[0] + covered, grand[1] + count, grand[2] + files]
line("total", *grand)
if totals["Bench"][2]:
    bench = totals["Bench"]
    line("total w/o Bench", grand[0] - bench[0], grand[1] - bench[1], grand[2] - bench[2])
EOF
exit "$status"
