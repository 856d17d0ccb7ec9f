#!/usr/bin/env bash
# Mutation testing of the simulator (issue 50): plants each small bug of
# scripts/sim-mutants.txt in Sources/RoshamboGame or Sources/RoshamboHub, one at a time,
# builds roshambo-simulate (debug), runs it on the CI seeds and says whether some seed
# FAILED (found, with the invariant that failed) or all passed (missed). The file is put
# back after every mutant, also on Ctrl-C or an error, and the tree is checked clean at
# the end. A mutant that does not build is counted apart, not as found.
#
#   scripts/sim-mutants.sh                       # every mutant, seeds 1000..1007
#   scripts/sim-mutants.sh --seeds 40 --min 90   # the CI's forty seeds; exit 1 under 90 %
#   scripts/sim-mutants.sh tour-final-never rating-swap   # only these
#   scripts/sim-mutants.sh --list                # ids, areas and what a user would notice
#
# Options: --seeds N (default 8), --hours H (default 1), --players P (default 16),
# --min PERCENT (default 90), --list, --file PATH (default scripts/sim-mutants.txt).
# Builds and runs under `nice -n 19`. Slow (an incremental build and a simulation per
# mutant): not part of .ci/run.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

seeds=8
hours=1
players=16
min=90
list_file="scripts/sim-mutants.txt"
only=()
list_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --hours) hours="$2"; shift 2 ;;
    --players) players="$2"; shift 2 ;;
    --min) min="$2"; shift 2 ;;
    --file) list_file="$2"; shift 2 ;;
    --list) list_only=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --*) echo "sim-mutants: unknown option $1" >&2; exit 64 ;;
    *) only+=("$1"); shift ;;
  esac
done
case "$seeds$min" in *[!0-9]*) echo "sim-mutants: --seeds and --min take whole numbers" >&2; exit 64 ;; esac

# The list's reader: one mutant a block.
#   == id
#   file: Sources/...
#   area: ...
#   notice: what a user would notice
#   --- find
#   exact lines (must occur exactly once in the file)
#   --- replace
#   lines
# Lines starting with # outside find/replace are comments.
mutants_py() {
  python3 - "$@" <<'PY'
import sys, os

def parse(path):
    mutants, cur, part = [], None, None
    for raw in open(path, encoding="utf-8").read().split("\n"):
        if raw.startswith("== "):
            cur = {"id": raw[3:].strip(), "find": [], "replace": []}
            mutants.append(cur); part = None; continue
        if cur is None:
            continue
        if raw == "--- find": part = "find"; continue
        if raw == "--- replace": part = "replace"; continue
        if part:
            cur[part].append(raw); continue
        if raw.startswith("#") or not raw.strip():
            continue
        key, _, value = raw.partition(":")
        cur[key.strip()] = value.strip()
    for m in mutants:
        for part in ("find", "replace"):
            lines = m[part]
            while lines and lines[-1] == "":
                lines.pop()
            m[part] = "\n".join(lines)
    return mutants

cmd, path = sys.argv[1], sys.argv[2]
mutants = parse(path)
by_id = {m["id"]: m for m in mutants}
if cmd == "check":
    bad = 0
    seen = set()
    for m in mutants:
        problems = []
        if m["id"] in seen: problems.append("id twice")
        seen.add(m["id"])
        for key in ("file", "area", "notice"):
            if not m.get(key): problems.append("no " + key)
        if not m["find"]: problems.append("no find text")
        if m["find"] == m["replace"]: problems.append("replacement is the find text")
        if m.get("file") and not m["file"].startswith(("Sources/RoshamboGame/", "Sources/RoshamboHub/")):
            problems.append("not in RoshamboGame or RoshamboHub")
        if m.get("file") and os.path.exists(m["file"]):
            n = open(m["file"], encoding="utf-8").read().count(m["find"]) if m["find"] else 0
            if n != 1: problems.append("find text occurs %d times in %s" % (n, m["file"]))
        elif m.get("file"):
            problems.append("no file " + m["file"])
        for p in problems:
            print("%s: %s" % (m["id"], p)); bad += 1
    sys.exit(1 if bad else 0)
elif cmd == "ids":
    for m in mutants: print(m["id"])
elif cmd == "field":
    print(by_id[sys.argv[3]][sys.argv[4]])
elif cmd == "list":
    for m in mutants: print("%-24s %-22s %s" % (m["id"], m["area"], m["notice"]))
elif cmd == "apply":
    m = by_id[sys.argv[3]]
    text = open(m["file"], encoding="utf-8").read()
    n = text.count(m["find"])
    if n != 1:
        print("%s: find text occurs %d times in %s" % (m["id"], n, m["file"]), file=sys.stderr)
        sys.exit(2)
    with open(m["file"], "w", encoding="utf-8") as f:
        f.write(text.replace(m["find"], m["replace"], 1))
else:
    sys.exit("unknown command " + cmd)
PY
}

[ -f "$list_file" ] || { echo "sim-mutants: no list $list_file" >&2; exit 66; }
if [ "$list_only" = 1 ]; then mutants_py list "$list_file"; exit 0; fi
if ! git diff --quiet -- Sources; then
  echo "sim-mutants: Sources has changes of its own; commit or stash them first" >&2
  exit 1
fi
if ! mutants_py check "$list_file"; then
  echo "sim-mutants: the list has errors (above)" >&2
  exit 1
fi
mapfile -t all_ids < <(mutants_py ids "$list_file")
if [ "${#only[@]}" -gt 0 ]; then
  for id in "${only[@]}"; do
    printf '%s\n' "${all_ids[@]}" | grep -qx -- "$id" || { echo "sim-mutants: no mutant $id" >&2; exit 64; }
  done
  ids=("${only[@]}")
else
  ids=("${all_ids[@]}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sim-mutants.XXXXXX")
backup=""      # the original of the file a mutant is in, while it is planted
target=""
restore() {
  if [ -n "$target" ] && [ -n "$backup" ] && [ -f "$backup" ]; then
    cat "$backup" > "$root/$target"
    rm -f "$backup"
    target=""
    backup=""
  fi
}
on_exit() {
  local rc=$?
  if [ -s "$work/sim.pid" ]; then kill "$(cat "$work/sim.pid")" 2>/dev/null; sleep 0.2; fi
  restore
  rm -rf "$work"
  if ! git -C "$root" diff --quiet -- Sources; then
    echo "sim-mutants: Sources is NOT clean after restoring:" >&2
    git -C "$root" diff --stat -- Sources >&2
    exit 70
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'echo; echo "sim-mutants: interrupted; restoring"; exit 130' INT TERM HUP

build() {
  nice -n 19 swift build --product roshambo-simulate >"$1" 2>&1
}

# Runs the seeds; prints "FAILED <invariant>" at the first failing seed (and stops the
# run there: one failing seed is enough), "passed" when all pass, "crash <rc>" when the
# program ended otherwise.
simulate() {
  local out="$1"
  : >"$out"
  nice -n 19 .build/debug/roshambo-simulate --seed 1000 --seeds "$seeds" --hours "$hours" \
    --players "$players" >"$out" 2>&1 &
  local sim_pid=$!
  echo "$sim_pid" >"$work/sim.pid"
  while kill -0 "$sim_pid" 2>/dev/null; do
    if grep -q ': FAILED ' "$out"; then
      kill "$sim_pid" 2>/dev/null
      break
    fi
    sleep 1
  done
  wait "$sim_pid" 2>/dev/null
  local rc=$?
  : >"$work/sim.pid"
  local line
  line=$(grep -m1 ': FAILED ' "$out")
  if [ -n "$line" ]; then
    # "seed N: FAILED <invariant>: <what was seen> (step …)"
    echo "FAILED $(echo "${line#*: FAILED }" | sed 's/: .*//') [${line%%: FAILED*}]"
  elif [ "$rc" = 0 ] && grep -q "of $seeds seeds passed" "$out"; then
    echo "passed"
  else
    echo "crash $rc"
  fi
}

echo "sim-mutants: ${#ids[@]} mutants, seeds 1000..$((1000 + seeds - 1)), $hours h, $players people"
echo "sim-mutants: the unmutated build first"
if ! build "$work/build-base.log"; then
  echo "sim-mutants: the tree does not build without a mutant:" >&2
  tail -20 "$work/build-base.log" >&2
  exit 1
fi

results=()
found=0 missed=0 nobuild=0
for id in "${ids[@]}"; do
  file=$(mutants_py field "$list_file" "$id" file)
  started=$(date +%s)
  echo "sim-mutants: $id ($file)"
  backup="$work/original"
  cp "$file" "$backup"
  target="$file"
  if ! mutants_py apply "$list_file" "$id"; then
    restore
    results+=("$id|not applied|-|0")
    nobuild=$((nobuild + 1))
    continue
  fi
  if ! build "$work/build-$id.log"; then
    verdict="did not build"
    how=$(grep -m1 'error:' "$work/build-$id.log" | sed 's/.*error: //' | cut -c1-60)
    nobuild=$((nobuild + 1))
  else
    outcome=$(simulate "$work/sim-$id.log")
    if [ "${outcome%% *}" = "crash" ]; then
      # A crash at start-up can be a stale build (a bad pointer): build from a touched
      # manifest and run once more before calling it the mutant's.
      touch Package.swift
      build "$work/build-$id.log" && outcome=$(simulate "$work/sim-$id.log")
    fi
    case "$outcome" in
      FAILED*) verdict="found"; how="${outcome#FAILED }"; found=$((found + 1)) ;;
      passed) verdict="missed"; how="-"; missed=$((missed + 1)) ;;
      *) verdict="found"; how="$outcome (no invariant named)"; found=$((found + 1))
         tail -5 "$work/sim-$id.log" ;;
    esac
  fi
  restore
  seconds=$(($(date +%s) - started))
  echo "sim-mutants: $id: $verdict ${how} (${seconds} s)"
  results+=("$id|$verdict|$how|$seconds")
done

# Build the restored tree again so .build holds the real program.
build "$work/build-base.log" || echo "sim-mutants: the restored tree did not build" >&2

echo
printf '%-24s %-14s %-6s %s\n' "mutant" "result" "s" "invariant (first failing seed)"
for row in "${results[@]}"; do
  IFS='|' read -r id verdict how seconds <<<"$row"
  printf '%-24s %-14s %-6s %s\n' "$id" "$verdict" "$seconds" "$how"
done
built=$((found + missed))
share=0
[ "$built" -gt 0 ] && share=$((100 * found / built))
echo
echo "sim-mutants: found $found of $built that built ($share %); missed $missed; did not build $nobuild;" \
  "seeds 1000..$((1000 + seeds - 1)), $hours h, $players people; $(date -u +%Y-%m-%d)"
if [ "$share" -lt "$min" ]; then
  echo "sim-mutants: under --min $min %"
  exit 1
fi
exit 0
