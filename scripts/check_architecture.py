#!/usr/bin/env python3
"""Fails when docs/ARCHITECTURE.md has drifted from the code it describes.

Two checks, both run by CI:

1. The table of targets. Every library and executable target in Package.swift (test
   targets, plugins and the test-support targets under Tests/ aside) must have a row in
   the table under "## Targets", and that row's last column must name, each in
   backticks, exactly the target's dependencies: no more, no fewer. Reads the package
   with `swift package dump-package`.

2. The hub's inputs, outputs and timers. Every case of `HubInput`
   (Sources/RoshamboHub/HubInput.swift), `HubOutput` and `HubTimer`
   (Sources/RoshamboHub/HubOutput.swift) must be the first column, in backticks, of a row
   of the matching table in the section "### The hub's inputs, outputs and timers", and
   every row must name a case that exists. A table is matched to its enum by the enum's
   name in backticks in its header's first cell. Only the cases of the enum itself count:
   the cases of enums nested in it or declared beside it in the same file (`Delivery.Kind`,
   `HubLog.Level`, `HubCount`) and the `case` labels of its switches do not.

Prints every problem and exits 1, or prints one line saying what was checked.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
architecture = root / "docs/ARCHITECTURE.md"
text = architecture.read_text()


# MARK: - The targets table


def dependency_name(dependency):
    for kind in ("byName", "product", "target"):
        if kind in dependency:
            return dependency[kind][0]
    raise SystemExit(f"check-architecture: a dependency of an unknown kind: {dependency}")


def check_targets():
    """Returns (problems, how many targets were checked)."""
    package = json.loads(
        subprocess.run(
            ["swift", "package", "dump-package"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    targets = {}
    for target in package["targets"]:
        if target["type"] not in ("regular", "executable"):
            continue
        if (target.get("path") or "").startswith("Tests/"):
            continue
        targets[target["name"]] = {dependency_name(d) for d in target["dependencies"]}

    section = text.split("## Targets", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        rows[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[-1]))

    problems = []
    for name, dependencies in sorted(targets.items()):
        if name not in rows:
            problems.append(f"{name}: no row in docs/ARCHITECTURE.md's table of targets")
            continue
        missing = dependencies - rows[name]
        extra = rows[name] - dependencies
        if missing:
            problems.append(
                f"{name}: depends on {', '.join(sorted(missing))}, which its row does not name"
            )
        if extra:
            problems.append(
                f"{name}: its row names {', '.join(sorted(extra))}, which it does not depend on"
            )
    # COpenSSL is a system library: dump-package lists it, but as neither kind above.
    for name in sorted(set(rows) - set(targets)):
        if name != "COpenSSL":
            problems.append(f"{name}: a row in the table, but no such target in Package.swift")
    return problems, len(targets)


# MARK: - Swift enums' cases


def blank_comments_and_strings(source):
    """`source` with every comment and string literal (interpolations included) replaced
    by spaces, newlines kept: braces, parentheses and `case` words in them then count
    for nothing, and offsets and line numbers stay those of the file."""
    out = list(source)
    n = len(source)

    def blank(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    def skip_comment(i):
        # At "//" or "/*"; returns the index after the comment (block comments nest).
        if source.startswith("//", i):
            end = source.find("\n", i)
            return n if end < 0 else end
        depth, j = 0, i
        while j < n:
            if source.startswith("/*", j):
                depth, j = depth + 1, j + 2
            elif source.startswith("*/", j):
                depth, j = depth - 1, j + 2
                if depth == 0:
                    return j
            else:
                j += 1
        return n

    def skip_string(i):
        # At a string literal's opening (with its raw-string #s); returns the index after it.
        hashes = 0
        while source[i + hashes] == "#":
            hashes += 1
        j = i + hashes
        quote = '"""' if source.startswith('"""', j) else '"'
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        j += len(quote)
        while j < n:
            if source.startswith(escape + "(", j):
                j = skip_code(j + len(escape) + 1, until=")")
            elif source.startswith(escape, j):
                j += len(escape) + 1
            elif source.startswith(close, j):
                return j + len(close)
            elif quote == '"' and source[j] == "\n":
                return j  # an unterminated literal ends with its line
            else:
                j += 1
        return n

    def skip_code(i, until):
        # Code inside an interpolation, to its closing parenthesis; returns the index after.
        depth, j = 0, i
        while j < n:
            c = source[j]
            if source.startswith("//", j) or source.startswith("/*", j):
                j = skip_comment(j)
            elif c == '"' or (c == "#" and re.match(r'#+"', source[j:])):
                j = skip_string(j)
            elif c == "(":
                depth, j = depth + 1, j + 1
            elif c == until and depth == 0:
                return j + 1
            else:
                if c == ")":
                    depth -= 1
                j += 1
        return n

    i = 0
    while i < n:
        c = source[i]
        if source.startswith("//", i) or source.startswith("/*", i):
            end = skip_comment(i)
            blank(i, end)
            i = end
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:])):
            end = skip_string(i)
            blank(i, end)
            i = end
        else:
            i += 1
    return "".join(out)


def enum_cases(path, name):
    """The cases declared directly in `enum name` in the Swift file `path`, in order, or
    a sentence saying why they could not be read."""
    try:
        source = path.read_text()
    except OSError as error:
        return f"cannot read {path.relative_to(root)}: {error.strerror}"
    code = blank_comments_and_strings(source)
    declaration = re.search(rf"\benum\s+{name}\b[^{{]*\{{", code)
    if not declaration:
        return f"no `enum {name}` in {path.relative_to(root)}"
    # The body's own text: everything at its top level, nested bodies (a nested enum's
    # cases, a computed property's switch) left out.
    top, depth, i = [], 0, declaration.end()
    while i < len(code):
        c = code[i]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            top.append(c)
        i += 1
    else:
        return f"`enum {name}` in {path.relative_to(root)} has no closing brace"
    body = "".join(top)

    cases = []
    for match in re.finditer(r"(?<![\w.])case\b", body):
        # The case list runs to the end of its line, or further while a parenthesis is open
        # (associated values over several lines); elements are split at top-level commas.
        elements, current, parens, j = [], [], 0, match.end()
        while j < len(body):
            c = body[j]
            if c in "([":
                parens += 1
            elif c in ")]":
                parens -= 1
            if parens == 0 and (c in "\n;"):
                break
            if parens == 0 and c == ",":
                elements.append("".join(current))
                current = []
            else:
                current.append(c)
            j += 1
        elements.append("".join(current))
        for element in elements:
            identifier = re.match(r"\s*`?([A-Za-z_]\w*)`?", element)
            if identifier:
                cases.append(identifier.group(1))
    if not cases:
        return f"`enum {name}` in {path.relative_to(root)} declares no case that could be read"
    return cases


# MARK: - The hub's tables


HUB_SECTION = "### The hub's inputs, outputs and timers"
HUB_ENUMS = {
    "HubInput": root / "Sources/RoshamboHub/HubInput.swift",
    "HubOutput": root / "Sources/RoshamboHub/HubOutput.swift",
    "HubTimer": root / "Sources/RoshamboHub/HubOutput.swift",
}


def markdown_tables(section):
    """Each table in `section` as (its header's cells, [(line number in the section, its
    cells)]) for the rows after the separator; the section's first line is number 1."""

    def cells(row):
        return [cell.strip() for cell in row.strip().strip("|").split("|")]

    tables, block = [], []
    lines = section.splitlines() + [""]
    for number, line in enumerate(lines, start=1):
        if line.strip().startswith("|"):
            block.append((number, line))
            continue
        if len(block) >= 2:
            header = cells(block[0][1])
            if re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", block[1][1].strip()):
                tables.append((header, [(n, cells(row)) for n, row in block[2:]]))
        block = []
    return tables


def check_hub_tables():
    """Returns (problems, {enum: how many cases})."""
    problems, counted = [], {}
    if HUB_SECTION not in text:
        return [f'docs/ARCHITECTURE.md has no section "{HUB_SECTION}"'], counted
    start = text.index(HUB_SECTION)
    section = re.split(r"\n#{1,3} ", text[start + len(HUB_SECTION) :], maxsplit=1)[0]
    first_line = text[:start].count("\n") + 1

    tables = {}
    for header, rows in markdown_tables(section):
        named = [enum for enum in HUB_ENUMS if f"`{enum}`" in header[0]]
        if len(named) == 1:
            if named[0] in tables:
                problems.append(f"{named[0]}: two tables in the section; keep one")
            tables[named[0]] = rows

    for enum, path in HUB_ENUMS.items():
        cases = enum_cases(path, enum)
        if isinstance(cases, str):
            problems.append(f"{enum}: {cases}")
            continue
        counted[enum] = len(cases)
        if enum not in tables:
            problems.append(
                f"{enum}: no table in the section (its header's first cell names `{enum}`)"
            )
            continue
        documented = {}
        for number, cells in tables[enum]:
            line = first_line + number - 1
            name = re.match(r"`\.?([A-Za-z_]\w*)", cells[0])
            if not name:
                problems.append(
                    f"{enum}: line {line}: the first column holds no case name in backticks: "
                    f"{cells[0]!r}"
                )
                continue
            if name.group(1) in documented:
                problems.append(
                    f"{enum}: line {line}: `{name.group(1)}` has a row already "
                    f"(line {documented[name.group(1)]})"
                )
            documented.setdefault(name.group(1), line)
        source = path.relative_to(root)
        for case in cases:
            if case not in documented:
                problems.append(
                    f"{enum}: case `{case}` ({source}) has no row in its table; add one "
                    "saying what it means"
                )
        for case, line in documented.items():
            if case not in cases:
                problems.append(
                    f"{enum}: line {line}: the table names `{case}`, which is no case of "
                    f"{enum} in {source}"
                )
    return problems, counted


target_problems, target_count = check_targets()
hub_problems, hub_counts = check_hub_tables()

if target_problems:
    print("check-architecture: docs/ARCHITECTURE.md's targets differ from Package.swift:")
    for problem in target_problems:
        print("  " + problem)
    print(
        "Update the table (or Package.swift) so that each row names exactly its target's "
        "dependencies."
    )
if hub_problems:
    print(f'check-architecture: docs/ARCHITECTURE.md\'s "{HUB_SECTION}" differs from the code:')
    for problem in hub_problems:
        print("  " + problem)
    print(
        "Update the tables so that each case of HubInput, HubOutput and HubTimer has exactly "
        "one row, first column the case's name in backticks."
    )
if target_problems or hub_problems:
    sys.exit(1)
print(
    f"check-architecture: the table names exactly the dependencies of all {target_count} "
    f"targets; the hub's tables name exactly the {hub_counts['HubInput']} inputs, "
    f"{hub_counts['HubOutput']} outputs and {hub_counts['HubTimer']} timers"
)
