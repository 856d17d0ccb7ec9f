#!/usr/bin/env bash
# Three walks through the player's side, timed from the outside on one build (a folder
# with `roshambo` and `roshambo-server`), so that two builds can be set side by side:
#   1. a key press to the other screen: Alice presses r in a match, until Bob's screen
#      (tmux, 80x24) says she has chosen; the median and worst of 20 rounds;
#   2. a lost link and back: Bob's connection cut mid-match (`ss -K`, a reset), until the
#      server has seated him again and his screen no longer says the link is down; the
#      median and worst of 10;
#   3. a bot's 1,000 matches: two built-in bots (random) in one room on a default server,
#      until both exit, or how far they got when nothing moved for 60 s.
# Usage: Benchmarks/walks/player-walks.sh BIN_DIR [LABEL]. Needs tmux, ss (iproute2),
# python3; the ports are picked by the server (`--port 0`).
set -euo pipefail
bin="$(cd "$1" && pwd)"
label="${2:-$bin}"
work="$(mktemp -d)"
sock="walks$$"
pids=()
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
now() { date +%s.%N; }
ms() { python3 -c "print(round(($2 - $1) * 1000, 1))"; }
stats() { python3 -c "import sys,statistics as s; v=[float(x) for x in sys.argv[1:]]; print(f'median {s.median(v):.1f} ms, worst {max(v):.1f} ms, n={len(v)}')" "$@"; }
shows() { tmux -L "$sock" capture-pane -p -t "$1" | grep -qF -- "$2"; }
wait_for() {  # who text [seconds]
  local deadline=$(( $(date +%s) + ${3:-20} ))
  until shows "$1" "$2"; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "walks: $1's screen never showed: $2" >&2; tmux -L "$sock" capture-pane -p -t "$1" >&2; exit 1; }
  done
}

start_server() {  # extra flags
  "$bin/roshambo-server" --host 127.0.0.1 --port 0 --data-dir data --no-announce \
    --log-level info "$@" > server.log 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do grep -q "listening on" server.log && break; sleep 0.05; done
  port="$(grep -o 'listening on 127.0.0.1:[0-9]*' server.log | cut -d: -f2)"
  [ -n "$port" ] || { echo "walks: the server did not start" >&2; cat server.log >&2; exit 1; }
}

# Walks 1 and 2: Alice and Bob in one long match (best of 99), each in a terminal.
start_server --best-of 99
for who in alice bob; do
  mkdir -p "home-$who"
  tmux -L "$sock" new-session -d -s "$who" -x 80 -y 24 \
    "HOME='$work/home-$who' '$bin/roshambo' play --host 127.0.0.1 --port $port --ca certs/ca.pem --name $who; sleep 600"
done
wait_for alice "Choose your weapon"
wait_for bob "Choose your weapon"
keys=()
for round in $(seq 20); do
  wait_for alice "Round $round"
  wait_for bob "Round $round"
  t0=$(now)
  tmux -L "$sock" send-keys -t alice r
  until tmux -L "$sock" capture-pane -p -t bob | grep -q "alice  score [0-9]*  chosen"; do :; done
  keys+=("$(ms "$t0" "$(now)")")
  tmux -L "$sock" send-keys -t bob s
done
echo "walks ($label): a key press to the other screen: $(stats "${keys[@]}")"

back=()
bob_pid() { pgrep -f "^$bin/roshambo play .*--name bob" | head -n 1; }
for try in $(seq 10); do
  round=$((20 + try))
  wait_for bob "Round $round"
  before=$(grep -c "resumed" server.log || true)
  pid="$(bob_pid)"
  local_port="$(ss -tnpH state established "( dport = :$port )" | grep "pid=$pid," | awk '{print $3}' | sed 's/.*://' | head -n 1)"
  [ -n "$local_port" ] || { echo "walks: no connection of Bob's found" >&2; exit 1; }
  t0=$(now)
  ss -K state established "( sport = :$local_port )" > /dev/null 2>&1
  until [ "$(grep -c "resumed" server.log || true)" -gt "$before" ]; do sleep 0.005; done
  while shows bob "Lost the connection" || shows bob "reconnecting"; do sleep 0.005; done
  back+=("$(ms "$t0" "$(now)")")
  tmux -L "$sock" send-keys -t alice r
  tmux -L "$sock" send-keys -t bob s
done
echo "walks ($label): a lost link and back: $(stats "${back[@]}")"
tmux -L "$sock" kill-server 2>/dev/null || true
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
pids=()
sleep 0.5
rm -rf data certs server.log

# Walk 3: two bots, 1,000 matches, one room, a default server.
start_server
t0=$(now)
for who in bot-one bot-two; do
  "$bin/roshambo" bot --host 127.0.0.1 --port "$port" --ca certs/ca.pem --name "$who" \
    --room walk --matches 1000 > "$who.out" 2>&1 &
  pids+=($!)
done
last=-1
still=0
while kill -0 "${pids[1]}" 2>/dev/null || kill -0 "${pids[2]}" 2>/dev/null; do
  sleep 1
  played=$(grep -c "^match [0-9]*:" bot-one.out || true)
  if [ "$played" = "$last" ]; then still=$((still + 1)); else still=0; last=$played; fi
  if [ "$still" -ge 60 ]; then
    echo "walks ($label): a bot's 1,000 matches: stalled at $played matches, nothing for 60 s ($(ms "$t0" "$(now)") ms in all)"
    exit 0
  fi
done
played=$(grep -c "^match [0-9]*:" bot-one.out || true)
wait "${pids[1]}" && one=0 || one=$?
wait "${pids[2]}" && two=0 || two=$?
echo "walks ($label): a bot's 1,000 matches: $played played in $(ms "$t0" "$(now)") ms, exit $one and $two"
