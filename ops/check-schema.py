#!/usr/bin/env python3
"""Validates every examples/*.json against docs/project.schema.json.

Prints one line per file ("ok" or the first problems found) and exits 1 if any file fails,
2 if the schema itself is missing or invalid. Needs the `jsonschema` package.

The schema checks the document's shape only; `farm validate` checks everything (asset ids,
overlaps, media). Usage: python3 ops/check-schema.py [FILE ...]
"""
import glob
import json
import os
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "docs", "project.schema.json")


def json_path(error):
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(root)"


def main(argv):
    try:
        with open(SCHEMA, encoding="utf-8") as handle:
            schema = json.load(handle)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as error:
        print(f"{os.path.relpath(SCHEMA, ROOT)}: unusable schema: {error}")
        return 2
    validator = jsonschema.Draft202012Validator(schema)

    if argv:
        files = [(file, file) for file in argv]
    else:
        found = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))
        files = [(os.path.relpath(file, ROOT), file) for file in found]
    if not files:
        print("examples/*.json: no files found")
        return 1
    failed = 0
    for name, file in files:
        try:
            with open(file, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError) as error:
            print(f"{name}: FAIL: {error}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            failed += 1
            problems = "; ".join(f"{json_path(e)}: {e.message}" for e in errors[:3])
            more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
            print(f"{name}: FAIL: {problems}{more}")
        else:
            print(f"{name}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
