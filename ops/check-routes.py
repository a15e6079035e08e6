#!/usr/bin/env python3
"""Checks that docs/openapi.yaml lists exactly the HTTP API's routes, method by method.

Why: the file is what clients and schemathesis (HTTPAPITests) read; a route added without its
entry, or an entry left after its route went, would go unnoticed. The routes come from the
server's own router: `farm http-routes` (hidden) builds it as `farm serve --http` does and prints
one `METHOD /path/{param}` a line, so the list cannot drift from what is served.

The YAML is read by hand (no PyYAML needed): under the top-level `paths:`, a path is a key
indented two spaces, its operations the HTTP methods indented four.

Prints one line per difference and exits 1, or a summary line and exits 0; exit 2 when the farm
binary cannot be run. `ops/test.sh` runs it after the build, and EndToEndTests' OpenAPIRoutesTests
runs it too.
Usage: python3 ops/check-routes.py [--farm .build/release/farm] [--openapi docs/openapi.yaml]
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def documented(path):
    """`METHOD /path` for every operation under `paths:` in the OpenAPI file at `path`."""
    routes = set()
    current = None
    in_paths = False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line.startswith(" "):
                in_paths = line.rstrip() == "paths:"
                continue
            if not in_paths:
                continue
            path_key = re.fullmatch(r"  ([\"']?)(/[^\"':]*)\1:\s*", line)
            if path_key:
                current = path_key.group(2)
                continue
            method_key = re.fullmatch(r"    ([a-z]+):.*", line)
            if method_key and current and method_key.group(1) in METHODS:
                routes.add(f"{method_key.group(1).upper()} {current}")
    return routes


def served(farm):
    """`METHOD /path` for every route the server registers, from `farm http-routes`."""
    try:
        result = subprocess.run([farm, "http-routes"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        print(f"check-routes: cannot run {farm}: {error} (build it first: swift build)", file=sys.stderr)
        sys.exit(2)
    if result.returncode != 0:
        print(f"check-routes: {farm} http-routes exited {result.returncode}: {result.stderr}", file=sys.stderr)
        sys.exit(2)
    return {line.strip() for line in result.stdout.splitlines() if line.strip()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--farm", default=os.path.join(ROOT, ".build/release/farm"))
    parser.add_argument("--openapi", default=os.path.join(ROOT, "docs/openapi.yaml"))
    arguments = parser.parse_args()
    name = os.path.relpath(arguments.openapi, ROOT) if arguments.openapi.startswith(ROOT) else arguments.openapi
    in_file = documented(arguments.openapi)
    in_server = served(arguments.farm)
    differences = [f"check-routes: {route} is served but not in {name}" for route in sorted(in_server - in_file)]
    differences += [f"check-routes: {route} is in {name} but not served" for route in sorted(in_file - in_server)]
    if not in_server:
        differences.append("check-routes: the server lists no routes")
    for line in differences:
        print(line, file=sys.stderr)
    if differences:
        sys.exit(1)
    print(f"check-routes: {name} and the server agree on {len(in_server)} routes")


if __name__ == "__main__":
    main()
