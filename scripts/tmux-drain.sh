#!/usr/bin/env bash
# The server stopped mid-match, in real terminals: Alice and Bob play a round; the host
# sends SIGTERM (a 3 s drain); both screens say the server is closing and what becomes
# of the match; it does not end in time, so the server stops; started again on the same
# port, both clients take their seats back by themselves and finish the match.
set -euo pipefail
name=tmux-drain
source "$(dirname "$0")/tmux-lib.sh"
start_server --drain-seconds 3 --grace-seconds 60

for player in Alice Bob; do
  tmux -L "$sock" new-session -d -s "$player" -x 100 -y 24 \
    "cd '$work' && '$bin/roshambo' play --host 127.0.0.1 --port $port --name $player --room duel; echo EXIT=\$?; sleep 60"
  expect_screen "$player" "Room duel"
done
expect_screen Alice "Choose your weapon"
press Alice r
press Bob s
expect_screen Bob "1. Alice rock, you scissors: Alice wins"

kill -TERM "$server_pid"
for player in Alice Bob; do
  expect_screen "$player" "! The server closes in"
  expect_screen "$player" "finish this match; if it does not end in time, it resumes"
done
# Nobody picks: the drain's 3 s pass and the server stops, saying so.
status=0; wait "$server_pid" || status=$?
[ "$status" -eq 0 ] || { echo "$name: the server exited $status"; cat server.out; exit 1; }
grep -q "draining: 1 match under way may finish within 3 s" server.out \
  || { echo "$name: the server did not say it was draining"; cat server.out; exit 1; }
grep -q "roshambo-server stopped" server.out || { cat server.out; exit 1; }

# The same server again, on the same port: the clients, retrying, resume their seats.
"$bin/roshambo-server" --host 127.0.0.1 --port "$port" --data-dir data --log-level error \
  --no-announce --drain-seconds 0 > server2.out 2>&1 &
server_pid=$!
# Waits (up to 20 s) until the player's screen no longer shows the text.
expect_gone() {  # player text
  for _ in $(seq 200); do
    tmux -L "$sock" capture-pane -p -t "$1" | grep -qF -- "$2" || return 0
    sleep 0.1
  done
  echo "$name: $1's screen still shows: $2"; tmux -L "$sock" capture-pane -p -t "$1"; exit 1
}
# Back: no more reconnecting, nor the server's closing; the match as it was.
for player in Alice Bob; do
  expect_gone "$player" "reconnecting"
  expect_gone "$player" "! The server"
  expect_screen "$player" "Round 2"
  expect_screen "$player" "Choose your weapon"
done
expect_screen Alice "P2 Bob  score 0  choosing"
expect_screen Bob "P1 Alice  score 1  choosing"
press Alice r
press Bob s
expect_screen Alice "You win the match 2–0!"
expect_screen Bob "Alice wins the match 2–0."
press Alice q
press Bob q
expect_screen Alice "EXIT=0"
expect_screen Bob "EXIT=0"
echo "$name: players told of the drain; the unfinished match resumed after the restart: OK"
