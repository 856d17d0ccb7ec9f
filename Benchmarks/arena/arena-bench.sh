#!/usr/bin/env bash
# The arena's figures (docs/PERFORMANCE.md, "The arena"): a release `roshambo arena` of
# 12 built-in bots (every pair, 1,000 rounds a game, both seat orders), every round played
# with the default --jobs beside --jobs 1 (the baseline, in the same run), then as the
# sequential test stops it, then 8 `exec:` bots in Python (the subprocess's cost per pick,
# p50 and p99; a program's first pick, which waits for it to start, apart). Run from the
# repository root:
#
#   Benchmarks/arena/arena-bench.sh [SCRATCH]     # SCRATCH: a build folder of your own
#
# The 12 bots are twelve different strategies of the pool (`roshambo bot --strategy list`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${1:-/tmp/roshambo-arena-bench}
cd "$root"
swift build -c release --product roshambo --scratch-path "$scratch" >&2
roshambo="$scratch/release/roshambo"
bot="$root/Benchmarks/arena/python-bot.py"
twelve=(random rock cycle frequency frequency-20 frequency-5 markov markov2 markov3 beat-last debruijn iocaine)
out=$(mktemp -d)

run() {
  local name=$1
  shift
  local started ended
  started=$(date +%s.%N)
  "$roshambo" arena "$@" --seed 1 --json "$out/$name.json" >"$out/$name.txt" 2>/dev/null
  ended=$(date +%s.%N)
  python3 - "$out/$name.json" "$name" "$started" "$ended" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
line = (f"{sys.argv[2]:<34} wall {wall:6.1f} s (arena {result['seconds']:.1f} s)  "
        f"rounds {result['roundsPlayed']:>7,} played, {result['roundsCounted']:>7,} counted  "
        f"{result['roundsPerSecond']:>6,.0f} rounds/s")
picks = result.get("programPicks")
if picks:
    line += f"  picks {picks['picks']:,}: p50 {picks['p50Micros']:.0f} µs, p99 {picks['p99Micros']:.0f} µs"
decided = sum(p["verdict"] in ("first", "second") for p in result["pairings"])
even = sum(p["verdict"] == "even" for p in result["pairings"])
line += f"  decided {decided}, even {even}, of {len(result['pairings'])}"
print(line)
PY
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# α and β of 1e-300 put the test's bounds out of reach: every pairing plays all its rounds
# (66 pairings × 2 seat orders × 1,000 = 132,000).
every=(--alpha 1e-300 --beta 1e-300)
run "12 built-in, every round, jobs 8" "${twelve[@]}" "${every[@]}"
run "12 built-in, every round, jobs 1" "${twelve[@]}" "${every[@]}" --jobs 1
run "12 built-in, the test, jobs 8" "${twelve[@]}"
python=()
for style in random rock paper scissors cycle copy beat-last beat-most; do
  python+=("exec:python3 $bot $style")
done
run "8 exec: (Python), jobs 8" "${python[@]}"
run "8 exec: (Python), jobs 1" "${python[@]}" --jobs 1
echo "machine after: load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
