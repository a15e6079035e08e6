#!/usr/bin/env python3
"""Checks that everything the docs promise is exercised by some test.

Why: docs/project-format.md and docs/cli.md (with `farm --help` / `farm-worker --help`) are the
contract users rely on. A key or flag that no test ever feeds to the program can break without
anyone noticing, so this lists every documented item that appears in no test.

What counts as documented:
  * project keys: the first backticked cell of every "Key" table in docs/project-format.md
    (`audio.sampleRate`, `position`, ...), plus the keys of inline JSON written in backticks
    outside code blocks (`{"width": 2, "color": "#000000"}` -> width, color);
  * enumerated values: backticked choices in the "Allowed" columns, in tables headed by a key
    (`fit`, `type`, `preset`, interpolation) and in the list a string key's meaning gives
    (`direction`: `left`, `right`, ...);
  * flags: every `--flag` in docs/cli.md, and every visible @Option / @Flag of the commands in
    Sources/Coordinator/CLI/Commands and Sources/Worker/Main (plus the parser's own --help,
    -h, --version where a version is set), long and short forms;
  * subcommands: every visible command under `farm`, and the ones docs/cli.md names.

What counts as exercised:
  * a key: `"key":` (quotes optional-escaped: `\\"key\\":`) in a file under Tests/ or in an
    examples/*.json that ExampleProjectTests validates (all but bench-*.json and demo.json);
    a dotted key `video.codec` must appear as `"codec":` directly inside a `"video": {...}`;
  * a value: `"value"` in those files;
  * a flag: the literal `--flag` (not followed by more name characters), or `"-o"` for a
    short one, in a file under Tests/ (ops/ scripts do not run in tests);
  * a subcommand: its words as consecutive string elements (`"workers", "drain"`) under Tests/.

Prints one line per missing item and exits 1, or a summary line and exits 0. Exit 2 means the
script could not read something it relies on (a layout change it does not understand).
Usage: python3 ops/check-documented.py [-v]   (-v lists everything it collected)
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROJECT_DOC = "docs/project-format.md"
CLI_DOC = "docs/cli.md"
COMMAND_SOURCES = ["Sources/Coordinator/CLI/Farm.swift", "Sources/Coordinator/CLI/Commands/*.swift",
                   "Sources/Worker/Main/*.swift"]
KEY_PREFIX = PROJECT_DOC
FLAG_PREFIX = "docs/cli.md or --help"

# Documented items that truly cannot be run in a test, each with the reason. Keys are written as
# in the report: 'key "x"', 'value "x"', 'flag --x', 'command "farm x"'. Keep it empty unless
# necessary.
ALLOWLIST = {
}


class Unreadable(Exception):
    pass


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def kebab(name):
    """ArgumentParser's default long name: camelCase and acronyms to kebab-case."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", name)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name)
    return name.lower()


# ---------------------------------------------------------------- docs/project-format.md

def markdown_lines(text):
    """Yields (heading, line) for every line outside fenced code blocks."""
    heading, fenced = "", False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        yield heading, line


def split_row(line):
    """Cells of a Markdown table row; a | inside backticks does not split."""
    cells, current, in_code = [], "", False
    for char in line.strip().strip("|"):
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append(current.strip())
            current = ""
        else:
            current += char
    cells.append(current.strip())
    return cells


def tables(text):
    """Yields (heading, header cells, rows of cells) for every Markdown table."""
    rows, header, heading = [], None, ""
    for current_heading, line in list(markdown_lines(text)) + [("", "")]:
        if line.lstrip().startswith("|"):
            cells = split_row(line)
            if header is None:
                header, heading = cells, current_heading
            elif not all(re.fullmatch(r":?-+:?", cell.replace(" ", "")) for cell in cells):
                rows.append(cells)
            continue
        if header is not None:
            yield heading, header, rows
        rows, header = [], None


ITEM = r"`([^`]+)`(?:\s*\([^)]*\))?"
RUN = re.compile(ITEM + r"(?:\s*,\s*" + ITEM + r")+")


def backticked(cell):
    return re.findall(r"`([^`]+)`", cell)


def choice(value):
    """A backticked enumerated string value, or None for placeholders, numbers and JSON."""
    value = value.strip()
    if len(value) > 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if re.fullmatch(r"[a-z][a-z0-9-]*", value):
        return value
    return None


def allowed_values(cell):
    """Values of an Allowed cell that is nothing but a list of backticked choices."""
    if not re.fullmatch(ITEM + r"(?:\s*,\s*" + ITEM + r")*", cell.strip()):
        return []
    return [value for value in (choice(v) for v in backticked(cell)) if value]


def meaning_values(cell):
    """The choices a meaning cell lists: a run of >= 2 backticked items at its start (followed by
    ':' or '.' or the end) or right after ': '. The last such run wins (`wipe`, `push`: `left`, ...)."""
    found = []
    for match in RUN.finditer(cell):
        before, after = cell[:match.start()].rstrip(), cell[match.end():].lstrip()
        at_start = before == "" and (after == "" or after[0] in ":.")
        after_colon = before.endswith(":")
        if at_start or after_colon:
            found = backticked(match.group(0))
    values = [choice(value) for value in found]
    return values if values and all(values) else []


def documented_project(text):
    """(keys, values): keys maps the key as written to where it is documented; values maps
    (key, value) to where it is documented."""
    keys, values = {}, {}
    for heading, header, rows in tables(text):
        first = header[0]
        if first == "Key":
            allowed = header.index("Allowed") if "Allowed" in header else None
            meaning = header.index("Meaning") if "Meaning" in header else None
            for row in rows:
                names = backticked(row[0])
                if not names:
                    raise Unreadable(f"{PROJECT_DOC}: a row of the table under '{heading}' has no key: {row[0]}")
                for name in names:
                    if not re.fullmatch(r"[A-Za-z]+(\[\])?(\.[A-Za-z]+(\[\])?)*", name):
                        raise Unreadable(f"{PROJECT_DOC}: unexpected key {name!r} under '{heading}'")
                    keys.setdefault(name, heading)
                if allowed is not None and allowed < len(row):
                    found = allowed_values(row[allowed])
                elif meaning is not None and meaning < len(row):
                    found = meaning_values(row[meaning])
                else:
                    found = []
                for value in found:
                    for name in names:
                        values.setdefault((name, value), heading)
            continue
        # Tables listing one key's values in their first column: `fit`, `preset`, `type`,
        # interpolation, Track `kind`.
        names = backticked(first)
        key = names[0] if len(names) == 1 else ("interpolation" if first.lower() == "interpolation" else None)
        if key is None:
            continue
        for row in rows:
            for value in backticked(row[0]):
                value = choice(value)
                if value:
                    values.setdefault((key, value), heading)
    # Keys of inline JSON in backticks outside code blocks: {"width": 2, ...}, {"bezier": [...]}.
    for heading, line in markdown_lines(text):
        for span in backticked(line):
            if ":" in span and '"' in span:
                for name in re.findall(r'"([A-Za-z]+)"\s*:', span):
                    keys.setdefault(name, heading)
    if len(keys) < 30:
        raise Unreadable(f"{PROJECT_DOC}: found only {len(keys)} keys; has the table layout changed?")
    return keys, values


# ---------------------------------------------------------------- --help and docs/cli.md

def balanced(text, start):
    """The index after the parenthesis closing the one at text[start], skipping Swift strings."""
    depth, index = 0, start
    while index < len(text):
        if text.startswith('"""', index):
            end = text.find('"""', index + 3)
            if end < 0:
                break
            index = end + 3
            continue
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise Unreadable(f"unbalanced parentheses at {text[start:start + 60]!r}")


def names_for(spec, prop):
    """Flags an ArgumentParser name specification gives a property."""
    if spec is None:
        return ["--" + kebab(prop)]
    flags = []
    for custom, single in re.findall(r'\.customLong\(\s*"([^"]+)"(\s*,\s*withSingleDash:\s*true)?', spec):
        flags.append(("-" if single else "--") + custom)
    flags += ["-" + custom for custom in re.findall(r"\.customShort\(\s*\"(.)\"", spec)]
    words = set(re.findall(r"\.(long|short|shortAndLong)\b", spec))
    if words & {"long", "shortAndLong"}:
        flags.append("--" + kebab(prop))
    if words & {"short", "shortAndLong"}:
        flags.append("-" + prop[0])
    if not flags:
        raise Unreadable(f"cannot read the name {spec!r} of {prop}")
    return flags


def help_flags(path, text):
    """(visible flags, hidden flags) of one Swift file's @Option and @Flag declarations."""
    visible, hidden = {}, {}
    for match in re.finditer(r"@(Option|Flag)\b", text):
        index = match.end()
        while index < len(text) and text[index] in " \t":
            index += 1
        arguments = ""
        if index < len(text) and text[index] == "(":
            end = balanced(text, index)
            arguments, index = text[index + 1:end - 1], end
        declaration = re.match(r"\s*(?:(?:public|private|fileprivate|internal)\s+)?var\s+(\w+)([^\n]*)",
                               text[index:])
        if not declaration:
            raise Unreadable(f"{path}: cannot read the declaration after {match.group(0)}")
        prop, rest = declaration.group(1), declaration.group(2)
        if match.group(1) == "Flag" and not re.search(r"=\s*(true|false)\b|:\s*Bool\b", rest):
            raise Unreadable(f"{path}: @Flag var {prop} is not a Bool; this script does not read enum flags")
        spec = re.search(r"\bname:\s*(\[[^\]]*\]|\.\w+(?:\([^)]*\))?)", arguments)
        flags = names_for(spec.group(1) if spec else None, prop)
        inversion = re.search(r"inversion:\s*\.(\w+)", arguments)
        if inversion:
            base = [flag[2:] for flag in flags if flag.startswith("--")]
            if inversion.group(1) == "prefixedNo":
                flags += ["--no-" + name for name in base]
            else:
                flags = [f"--{prefix}-{name}" for name in base for prefix in ("enable", "disable")]
        line = text.count("\n", 0, match.start()) + 1
        target = hidden if re.search(r"visibility:\s*\.(hidden|private)", arguments) else visible
        for flag in flags:
            target.setdefault(flag, f"{path}:{line}")
    return visible, hidden


def configurations(sources):
    """Every ParsableCommand: type name -> (command name, subcommand type names, shown, versioned)."""
    commands = {}
    for path, text in sources.items():
        for match in re.finditer(r"struct\s+(\w+)\s*:\s*[^{]*\bParsableCommand\b", text):
            body = text[match.end():]
            config = re.search(r"static\s+(?:let|var)\s+configuration\s*=\s*CommandConfiguration\s*\(", body)
            arguments = ""
            if config and not re.search(r"\bstruct\s", body[:config.start()]):
                start = config.end() - 1
                arguments = body[start:balanced(body, start)]
            explicit = re.search(r'commandName:\s*"([^"]+)"', arguments)
            subcommands = re.search(r"subcommands:\s*\[([^\]]*)\]", arguments)
            commands[match.group(1)] = (
                explicit.group(1) if explicit else kebab(match.group(1)),
                re.findall(r"(\w+)\.self", subcommands.group(1)) if subcommands else [],
                not re.search(r"shouldDisplay:\s*false", arguments),
                bool(re.search(r"\bversion:", arguments)),
            )
    return commands


def command_paths(commands):
    """Visible command paths ('farm workers drain'), each with its source type; and programs."""
    children = {child for _, subs, _, _ in commands.values() for child in subs}
    paths, programs = {}, []

    def walk(type_name, prefix):
        if type_name not in commands:
            raise Unreadable(f"subcommand {type_name} has no configuration the script can read")
        name, subs, shown, _ = commands[type_name]
        if not shown:
            return
        path = prefix + [name]
        if prefix:
            paths[" ".join(path)] = type_name
        for sub in subs:
            walk(sub, path)

    for type_name, (name, _, _, versioned) in commands.items():
        if type_name not in children:
            programs.append((name, versioned))
            walk(type_name, [])
    return paths, programs


def cli_doc(text):
    """(flags, commands) docs/cli.md names."""
    flags = {}
    for number, line in enumerate(text.splitlines(), 1):
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])", line):
            if flag.startswith("--") or "`" in line:
                flags.setdefault(flag, f"{CLI_DOC}:{number}")
    # Short flags are taken only from code spans, where `-o OUT` means the option.
    flags = {flag: where for flag, where in flags.items()
             if flag.startswith("--") or re.search(r"`[^`]*(?<![\w-])" + re.escape(flag) + r"\b[^`]*`", text)}
    commands = {}
    for heading, header, rows in tables(text):
        if header[0] != "Command":
            continue
        for row in rows:
            previous = None
            for span in backticked(row[0]):
                words = []
                for word in span.split():
                    if not re.fullmatch(r"[a-z][a-z0-9-]*", word):
                        break
                    words.append(word)
                if words and words[0] != "farm" and previous:
                    words = previous[:-1] + words  # `farm workers drain ID` / `undrain ID`
                if words and words[0] == "farm" and len(words) > 1:
                    commands.setdefault(" ".join(words), f"{CLI_DOC} ({heading})")
                    previous = words
    return flags, commands


def documented_cli():
    sources = {}
    for pattern in COMMAND_SOURCES:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            relative = os.path.relpath(path, ROOT)
            sources[relative] = read(relative)
    if not sources:
        raise Unreadable("no command sources found")
    # Hidden options (visibility: .hidden) are left out: help_flags returns them apart.
    flags = {}
    for path, text in sources.items():
        shown, _ = help_flags(path, text)
        for flag, where in shown.items():
            flags.setdefault(flag, where)
    commands = {}
    paths, programs = command_paths(configurations(sources))
    for path, type_name in paths.items():
        commands[path] = f"--help ({type_name})"
    for flag in ("--help", "-h"):
        flags.setdefault(flag, "ArgumentParser")
    if any(versioned for _, versioned in programs):
        flags.setdefault("--version", "ArgumentParser")
    doc_flags, doc_commands = cli_doc(read(CLI_DOC))
    for flag, where in doc_flags.items():
        flags.setdefault(flag, where)
    for path, where in doc_commands.items():
        commands.setdefault(path, where)
    if len(flags) < 10 or len(commands) < 5:
        raise Unreadable(f"found only {len(flags)} flags and {len(commands)} commands; has the CLI layout changed?")
    return flags, commands, programs


# ---------------------------------------------------------------- what the tests use

def test_files(with_examples):
    files = [path for path in glob.glob(os.path.join(ROOT, "Tests", "**", "*"), recursive=True)
             if os.path.isfile(path)]
    if with_examples:
        # As ExampleProjectTests: every examples/*.json but bench-*.json and demo.json.
        files += [path for path in glob.glob(os.path.join(ROOT, "examples", "*.json"))
                  if not os.path.basename(path).startswith("bench-") and os.path.basename(path) != "demo.json"]
    texts = []
    for path in sorted(files):
        with open(path, encoding="utf-8", errors="replace") as handle:
            texts.append(handle.read())
    if not texts:
        raise Unreadable("no files under Tests/")
    return "\n".join(texts)


def quoted(word):
    return r'\\?"' + re.escape(word) + r'\\?"'


def objects_under(text, parent):
    """The text of every object literal that is the value of "parent" (braces counted)."""
    found = []
    for match in re.finditer(quoted(parent) + r"\s*:\s*\{", text):
        depth, index = 0, match.end() - 1
        limit = min(len(text), index + 20000)
        while index < limit:
            if text[index] == "{":
                depth += 1
            elif text[index] == "}":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        found.append(text[match.end():index])
    return found


def elements_under(text, parent):
    """The text of every object literal that is an element of the array value of "parent"."""
    found = []
    for match in re.finditer(quoted(parent) + r"\s*:\s*\[", text):
        depth, start, index = 0, None, match.end()
        limit = min(len(text), index + 20000)
        while index < limit:
            char = text[index]
            if char in "{[":
                depth += 1
                if depth == 1 and char == "{":
                    start = index + 1
            elif char in "}]":
                if depth == 0:
                    break
                depth -= 1
                if depth == 0 and char == "}" and start is not None:
                    found.append(text[start:index])
                    start = None
            index += 1
    return found


def directly_inside(body, key):
    """Whether "key": appears at the top level of an object's body."""
    depth = 0
    pattern = re.compile(quoted(key) + r"\s*:")
    for index, char in enumerate(body):
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif depth == 0 and char in '"\\' and pattern.match(body, index):
            return True
    return False


def key_used(text, key):
    """(used, hint) for a documented key."""
    *parents, last = key.split(".")
    last = last.removesuffix("[]")
    bare = re.search(quoted(last) + r"\s*:", text) is not None
    if not parents:
        return bare, ""
    bodies = [text]
    for parent in parents:
        # `renditions[].name`: "name" directly inside an element of the "renditions" array.
        under = elements_under if parent.endswith("[]") else objects_under
        bodies = [inner for body in bodies for inner in under(body, parent.removesuffix("[]"))]
    if any(directly_inside(body, last) for body in bodies):
        return True, ""
    inside = " inside ".join(f'"{parent.removesuffix("[]")}"' for parent in reversed(parents))
    return False, f' ("{last}" appears, but never directly inside a {inside} object)' if bare else ""


def flag_used(text, flag):
    if flag.startswith("--"):
        return re.search(re.escape(flag) + r"(?![\w-])", text) is not None
    return re.search(r'"' + re.escape(flag) + r'"', text) is not None


def command_used(text, words):
    elements = r"\s*,\s*".join(quoted(word) for word in words)
    return re.search(r"(?:^|[\[,(])\s*" + elements + r"\s*[,\])]", text, re.MULTILINE) is not None


# ---------------------------------------------------------------- report

def main(argv):
    verbose = "-v" in argv
    try:
        keys, values = documented_project(read(PROJECT_DOC))
        flags, commands, programs = documented_cli()
        key_text = test_files(with_examples=True)
        flag_text = test_files(with_examples=False)
    except (OSError, Unreadable) as error:
        print(f"check-documented: {error}", file=sys.stderr)
        return 2
    program_names = {name for name, _ in programs}

    missing, allowed, checked = [], [], set()

    def report(item, line):
        checked.add(item)
        if item in ALLOWLIST:
            allowed.append(f"{item}: allowed untested ({ALLOWLIST[item]})")
        else:
            missing.append(line)

    for key in keys:
        used, hint = key_used(key_text, key)
        if not used:
            report(f'key "{key}"', f'{KEY_PREFIX}: key "{key}" appears in no test{hint}')
    for flag in sorted(flags, key=lambda flag: flag.lstrip("-")):
        if not flag_used(flag_text, flag):
            report(f"flag {flag}", f"{FLAG_PREFIX}: flag {flag} appears in no test")
    for path in sorted(commands):
        words = path.split()
        if words[0] in program_names:
            words = words[1:]
        if not command_used(flag_text, words):
            report(f'command "{path}"', f'{FLAG_PREFIX}: command "{path}" appears in no test')
    value_missing = []
    for key, value in sorted(values):
        if not re.search(quoted(value), key_text):
            item = f'value "{value}"'
            if item in ALLOWLIST:
                allowed.append(f"{item}: allowed untested ({ALLOWLIST[item]})")
            else:
                value_missing.append(f'{KEY_PREFIX}: value "{value}" (of key "{key}") appears in no test')
            checked.add(item)

    if verbose:
        print("keys:", ", ".join(keys))
        print("flags:", ", ".join(f"{flag} ({where})" for flag, where in sorted(flags.items())))
        print("commands:", ", ".join(sorted(commands)))
        print("values:", ", ".join(f"{key}={value}" for key, value in sorted(values)))
    for line in missing + value_missing:
        print(line)
    for line in allowed:
        print(line)
    for item in ALLOWLIST:
        if item not in checked:
            print(f"check-documented: allowlist entry {item} is tested or no longer documented; remove it")
    counts = f"{len(keys)} project keys, {len(flags)} flags"
    extra = f"{len(commands)} subcommands and {len(values)} enumerated values"
    allow = f"allowlist: {len(ALLOWLIST)} item(s)" if ALLOWLIST else "allowlist: empty"
    if missing or value_missing:
        print(f"documented surface: {counts} (also {extra}); {len(missing) + len(value_missing)} "
              f"appear in no test ({len(value_missing)} of them values); {allow}")
        return 1
    print(f"documented surface: {counts}, all exercised by tests")
    print(f"(also {extra}; {allow})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
