#!/usr/bin/env bash
# The party's board in a real browser (issue 52): starts roshambo-server with --board, a
# five-player single-elimination tournament of bots (one named with markup), and four bots
# playing slow matches, each against the other three in turn (rated); then reads the page in
# Debian's headless Chromium (--dump-dom, polled until each condition holds) and asserts on its DOM: the
# bracket with the bye and the champion, a room being played, the leaderboard with its
# intervals, the markup name shown as text. Screenshots at 1920×1080 and 1280×720 go to
# .build/board-screenshots/. Run by .ci/run after `swift build`; needs chromium.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/debug"
shots="$root/.build/board-screenshots"
[ -x "$bin/roshambo-server" ] || { echo "board-browser: run swift build first" >&2; exit 66; }
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "board-browser: no chromium on this machine; install Debian's (apt-get install -y chromium)" >&2
  exit 69
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
fail() {
  echo "board-browser: $*" >&2
  echo "--- the page's DOM:" >&2
  cat dom.html >&2 2>/dev/null || true
  echo "--- the server's output:" >&2
  cat server.out >&2
  exit 1
}

"$bin/roshambo-server" --host 127.0.0.1 --port 0 --data-dir data --no-announce \
  --log-level error --best-of 3 --tournament single-elimination --tournament-players 5 \
  --tournament-pause 8 --tournament-entries-per-address 0 --rated-same-address \
  --tournament-next off --board 0 > server.out 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "party's board on" server.out 2>/dev/null && break; sleep 0.1; done
port="$(grep -o 'listening on 127.0.0.1:[0-9]*' server.out | cut -d: -f2)"
board="$(grep -o "board on http://127.0.0.1:[0-9]*" server.out | cut -d: -f3)"
[ -n "$port" ] && [ -n "$board" ] || fail "the server did not start"
# `?events=N`: the page stops after N messages, so that the headless browser's network
# goes idle and it dumps or shoots the page as it stands (a stream left open stops the
# browser's clock). While the bots play, 3: the whole view and two patches, each checked
# against its fingerprint by the page; once the evening may have gone quiet (the bots'
# matches over, the tournament finished), 1: the whole view, which always comes.
base="http://127.0.0.1:$board/"
url="$base?events=3"

# A bot that thinks for a moment before each pick, so that matches last long enough to be
# seen being played.
cat > slow.sh <<'BOT'
#!/bin/sh
while read -r line; do
  case "$line" in
    *'"type":"pick"'*) sleep 0.3; shuf -n1 -e rock paper scissors ;;
  esac
done
BOT
bot() { # name, then roshambo bot's flags
  local name="$1"
  shift
  # Each its own identity (made on first use), so that their matches are rated.
  "$bin/roshambo" bot --host 127.0.0.1 --port "$port" --ca certs/ca.pem --name "$name" \
    --identity "$work/identity-${#pids[@]}.pem" --exec "sh $work/slow.sh" "$@" > "bot-${#pids[@]}.out" 2>&1 &
  pids+=($!)
}
# Four in a round robin of their own, over and over, one match at a time in a room named
# for the pair and the turn: each meets the other three in turn, so the leaderboard lists
# them (rated against three different people) with their intervals. (Quick match would
# pair whoever came back first, often the same two again.) A match whose partner never
# comes is given up after a minute, and the turn goes on.
mixer() { # name, then the three others in the order met
  local name="$1" identity="$work/identity-mix-$1.pem"
  shift
  (
    turn=0
    while :; do
      turn=$((turn + 1))
      for other in "$@"; do
        room="$(printf '%s\n' "$name" "$other" | sort | paste -sd- -)-$turn"
        timeout 60 "$bin/roshambo" bot --host 127.0.0.1 --port "$port" --ca certs/ca.pem \
          --name "$name" --identity "$identity" --exec "sh $work/slow.sh" --room "$room" \
          --matches 1 >> "mix-$name.out" 2>&1 || sleep 1
      done
    done
  ) &
  pids+=($!)
}
mixer Dora Ezra Fay Gus
mixer Ezra Dora Gus Fay
mixer Fay Gus Dora Ezra
mixer Gus Fay Ezra Dora
for name in Ann Bob Cleo Dan '<img src=x onerror=f()>'; do bot "$name" --tournament; done

# A second server, running a round robin of three, for its cross table (entries close at
# three, or ten minutes after the second).
"$bin/roshambo-server" --host 127.0.0.1 --port 0 --data-dir data-rr --no-announce \
  --log-level error --best-of 1 --tournament round-robin --tournament-players 3 \
  --tournament-start 600 --tournament-pause 2 --tournament-entries-per-address 0 \
  --tournament-next off --board 0 > server-rr.out 2>&1 &
rr_pid=$!
pids+=($rr_pid)
for _ in $(seq 100); do grep -q "party's board on" server-rr.out 2>/dev/null && break; sleep 0.1; done
rr_port="$(grep -o 'listening on 127.0.0.1:[0-9]*' server-rr.out | cut -d: -f2)"
rr_board="$(grep -o "board on http://127.0.0.1:[0-9]*" server-rr.out | cut -d: -f3)"
[ -n "$rr_port" ] && [ -n "$rr_board" ] || fail "the round robin's server did not start"
rr_bot() { # name
  "$bin/roshambo" bot --host 127.0.0.1 --port "$rr_port" --ca certs/ca.pem --name "$1" \
    --identity "$work/identity-rr-$1.pem" --exec "sh $work/slow.sh" --tournament \
    > "bot-rr-$1.out" 2>&1 &
  pids+=($!)
}

dom() {
  timeout 20 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=3000 --dump-dom "$url" > dom.html 2>/dev/null || true
}
# Polls the page until `grep -E` finds every pattern given, or 90 tries.
wait_for() {
  local what="$1"
  shift
  for _ in $(seq 60); do
    dom
    local all=1
    for pattern in 'data-snapshot="done"' "$@"; do grep -qE -- "$pattern" dom.html || { all=0; break; }; done
    [ "$all" = 1 ] && { echo "board-browser: the page shows $what"; return 0; }
    sleep 0.5
  done
  fail "the page never showed $what"
}
shot() { # width height file
  timeout 20 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --virtual-time-budget=3000 --window-size="$1,$2" --screenshot="$3" "$url" \
    > /dev/null 2>&1 || fail "no screenshot at $1×$2"
  [ -s "$3" ] || fail "the screenshot at $1×$2 is empty"
}

# The round robin's first two entrants: its page counts down to the start (entries close
# in ten minutes); then the third enters, which starts it.
rr_bot Hal
rr_bot Ivy
url="http://127.0.0.1:$rr_board/?events=1"
wait_for "the countdown to the round robin's start" \
  'id="countdown" data-at="[0-9]+" data-what="Starts in ">Starts in (9:[0-5][0-9]|10:00)<'
rr_bot Jo
url="$base?events=3"

wait_for "a room being played" 'class="room" data-room="[^"]+"'
if grep -q 'data-resyncs' dom.html; then fail "a patch did not match its fingerprint in the page"; fi
# Followed for twenty views (five seconds), a room's score changes on the page (and flashes).
url="$base?events=20"
wait_for "a running room's score changing" 'class="room changed" data-room="[^"]+" data-changed="true"'
url="$base?events=1"
wait_for "the bracket with its bye, while the tournament runs" 'id="bracket"' 'data-bye="true"'
mkdir -p "$shots"
shot 1920 1080 "$shots/board-running-1920x1080.png"
wait_for "the champion and the leaderboard with intervals" \
  'id="champion"><span class="crown">Champion</span><span class="who">[^<…]+</span>' \
  'id="leaderboard"' 'class="bar"' 'id="rating-history"' 'class="history"'
shot 1920 1080 "$shots/board-1920x1080.png"
shot 1280 720 "$shots/board-1280x720.png"
# As the lobby shows them: the settled numbered, the new players (provisional, "?") apart
# under their line, not numbered.
python3 - dom.html <<'PY' || fail "the leaderboard does not set the new players apart as the lobby does"
import re, sys
page = open(sys.argv[1]).read()
groups = re.findall(r'<g class="leader( new)?"><text[^>]*>([^<]*)</text>(.*?)</g>', page)
assert groups, "no leader"
for new, name, rest in groups:
    provisional = 'class="point provisional"' in rest
    assert bool(new) == provisional, (name, rest)
    assert name.startswith("· ") if new else re.match(r"[0-9]+\. ", name), name
assert any(new for new, _, _ in groups) == ('class="tick new-players"' in page)
PY

# This page was opened after the tournament's early rounds: the server sent them, and
# every box of the bracket has its players.
if grep -q 'played before this page opened' dom.html; then
  fail "a page opened late does not show the earlier rounds"
fi
grep -qE 'data-round="1"><h3>Round 1</h3><div class="match' dom.html \
  || fail "round 1 of the bracket has no match"

# The name with markup is text: escaped in the DOM, never an element.
grep -qF '&lt;img src=x onerror=f()&gt;' dom.html || fail "the markup name is not shown as text"
if grep -qE '<img[ >]' dom.html; then fail "a name became an <img> element"; fi
grep -qE 'class="banner"[^>]* hidden' dom.html || fail "the banner shows while the stream is up"

# The round robin's page, opened once its tournament is over: the cross table with every
# result (three entrants, three matches: each result in two cells) and the champion.
url="http://127.0.0.1:$rr_board/?events=1"
wait_for "the round robin's cross table, finished" 'id="cross-table"' \
  'id="champion"><span class="crown">Champion</span><span class="who">[^<…]+</span>'
results="$(grep -oE 'data-result="(won|lost)"' dom.html | wc -l)"
[ "$results" = 6 ] || fail "the cross table shows $results results, not 6"
shot 1280 720 "$shots/board-round-robin-1280x720.png"

# The round robin's server killed (a crash: its bots, in the next tournament, would hold
# a drain) and started again under a page that stays open: the page opens its stream
# again by itself and shows the tournament replayed from the journal in its second view.
url="http://127.0.0.1:$rr_board/?views=2"
timeout 90 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --virtual-time-budget=100000000 --dump-dom "$url" > dom.html 2>/dev/null &
page=$!
# The page's stream is open once a connection to the board is seen twice in a row: the
# page's files come on connections that close once answered, the stream's stays.
previous=""
streaming=0
for _ in $(seq 300); do
  current="$(ss -Htn state established "( sport = :$rr_board )" | awk '{print $4}' | sort)"
  if [ -n "$previous" ] && [ -n "$(comm -12 <(echo "$previous") <(echo "$current"))" ]; then
    streaming=1
    break
  fi
  previous="$current"
  sleep 0.1
done
[ "$streaming" = 1 ] || fail "the page never opened its stream"
kill -KILL "$rr_pid"
wait "$rr_pid" 2>/dev/null || true
"$bin/roshambo-server" --host 127.0.0.1 --port "$rr_port" --data-dir data-rr --no-announce \
  --log-level error --best-of 1 --tournament round-robin --tournament-players 3 \
  --tournament-pause 2 --tournament-entries-per-address 0 --tournament-next off \
  --board "$rr_board" \
  > server-rr-2.out 2>&1 &
pids+=($!)
wait "$page" || true
grep -q 'data-views="2"' dom.html || {
  cat server-rr-2.out >&2
  fail "the page did not come back by itself after the restart"
}
grep -qE 'class="banner"[^>]* hidden' dom.html || fail "the banner still shows after the restart"
grep -q 'id="cross-table"' dom.html || fail "the page after the restart has no cross table"
echo "board-browser: the page came back by itself after the server's restart"

# A match's replay page (/match/N): the single elimination's final (the match kept in the
# room of its last round, cup-1-R-1 with the highest R), found by asking the board for
# each kept record in turn (`/match/N.json`, which the hub reads for it), then opened at
# its last round (`#last`): the page shows that round's weapons, the result, and the check
# of the record as `roshambo verify` makes it.
replay_base="http://127.0.0.1:$board"
# Meanwhile two more bots play one fair match (commit–reveal), whose page must show the
# record verified.
bot Kim --room fair-den --fair --matches 1
bot Lou --room fair-den --fair --matches 1
final_facts="$(python3 - "$replay_base" <<'PY'
import html, json, re, sys, urllib.error, urllib.request
base, best, number = sys.argv[1], None, 1
while True:
    try:
        with urllib.request.urlopen(f"{base}/match/{number}.json", timeout=10) as answer:
            body = json.load(answer)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            break
        raise
    record = body["record"]
    final = re.fullmatch(r"cup-1-([0-9]+)-1", record["room"])
    if final and (best is None or int(final.group(1)) > best[0]):
        best = (int(final.group(1)), number, record, body["verification"])
    number += 1
if best is None or not best[2]["rounds"]:
    sys.exit("no final among the kept matches")
_, number, record, verification = best
last = record["rounds"][-1]
def weapon(seat):
    if last["weapons"][seat]:
        return last["weapons"][seat]
    return "(no reveal)" if (last.get("commitments") or [None, None])[seat] else "(none)"
scores = record["scores"][::-1] if record["winner"] == record["players"][1] != record["players"][0] else record["scores"]
result = f'{record["winner"]} won {scores[0]} – {scores[1]}'
if record["forfeit"]:
    result += " by forfeit"
kind = "fails" if not verification["holds"] else "proof" if verification["proof"] else "consistent"
# Tab-separated, as the DOM holds them (text escaped).
print("\t".join([str(number), str(last["round"]), weapon(0), weapon(1),
                 html.escape(result, quote=False), kind]))
PY
)" || fail "the board's records have no final: $final_facts"
IFS=$'\t' read -r final last_round weapon1 weapon2 result verdict <<< "$final_facts"
url="$replay_base/match/$final#last"
for _ in $(seq 20); do
  dom
  grep -q 'data-loaded="done"' dom.html && break
  sleep 0.5
done
grep -q 'data-loaded="done"' dom.html || fail "the final's replay page (match $final) never loaded"
grep -qF "id=\"step\" class=\"step\">round $last_round of $last_round<" dom.html \
  || fail "the replay page of match $final is not at its last round ($last_round)"
for seat in 1 2; do
  shown="weapon$seat"
  grep -qF -e "id=\"weapon$seat\" class=\"weapon\">${!shown}<" \
    -e "id=\"weapon$seat\" class=\"weapon won\">${!shown}<" dom.html \
    || fail "the replay page does not show the last round's weapons ($weapon1, $weapon2)"
done
grep -qF "id=\"result\" class=\"result\">$result<" dom.html \
  || fail "the replay page does not show the result ($result)"
grep -qF "data-verdict=\"$verdict\"" dom.html || fail "the replay page's verdict is not $verdict"
shot 1280 720 "$shots/board-replay-1280x720.png"
echo "board-browser: the final (match $final) replays to round $last_round: $weapon1 – $weapon2, $result"

# The fair match's page: every reveal checked against its commitment, on the server.
fair=""
for _ in $(seq 60); do
  fair="$(python3 - "$replay_base" <<'PY'
import json, sys, urllib.error, urllib.request
base, number = sys.argv[1], 1
while True:
    try:
        with urllib.request.urlopen(f"{base}/match/{number}.json", timeout=10) as answer:
            record = json.load(answer)["record"]
    except urllib.error.HTTPError:
        break
    if record["room"] == "fair-den" and record["fair"]:
        print(number)
        break
    number += 1
PY
)"
  [ -n "$fair" ] && break
  sleep 0.5
done
[ -n "$fair" ] || fail "the fair match in fair-den was never kept"
url="$replay_base/match/$fair#last"
for _ in $(seq 20); do
  dom
  grep -q 'data-loaded="done"' dom.html && break
  sleep 0.5
done
grep -q 'data-verdict="proof"' dom.html && grep -qF 'Consistent: every reveal matches its commitment' dom.html \
  || fail "the fair match's page (match $fair) does not show its record verified"
grep -qF 'id="commitments" class="muted commitments">Committed: ' dom.html \
  || fail "the fair match's page does not show the round's commitments"
shot 1280 720 "$shots/board-replay-fair-1280x720.png"
echo "board-browser: the fair match (match $fair) shows its record verified"
echo "board-browser: ok (screenshots in $shots)"
