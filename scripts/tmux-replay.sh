#!/usr/bin/env bash
# A match replayed on a real terminal (tmux): two bots play a match on a server; then
# `roshambo replay 1` steps through it with the keys (→ l forward, ← h back, g G start
# and end, q leave), and the screen after each key must show that round as the server's
# own record (`roshambo-server history 1 --json`, replayed piped) says it went.
name=tmux-replay
source "$(dirname "$0")/tmux-lib.sh"
start_server

# Ann always plays paper, Bob cycles rock, paper, scissors: Ann wins, a draw, Bob wins,
# Ann wins; four rounds, so the replay has a start, two rounds between and an end.
for who in Ann:paper Bob:cycle; do
  "$bin/roshambo" bot --host 127.0.0.1 --port "$port" --ca certs/ca.pem --room r1 \
    --matches 1 --name "${who%%:*}" --strategy "${who#*:}" > "${who%%:*}.out" 2>&1 &
done
wait %2 %3 2>/dev/null || true
for _ in $(seq 100); do
  "$bin/roshambo-server" --data-dir data history 1 --json > record.json 2>/dev/null && break
  sleep 0.1
done
[ -s record.json ] || { echo "$name: the match was not recorded"; cat Ann.out Bob.out; exit 1; }
# The server's record replayed piped: one line per round, "round N | what happened".
"$bin/roshambo" replay record.json > lines.txt
rounds=$(wc -l < lines.txt)
[ "$rounds" -eq 4 ] || { echo "$name: expected 4 rounds, the record has $rounds"; cat lines.txt; exit 1; }
line() { sed -n "${1}p" lines.txt | cut -d'|' -f2 | sed 's/^ *//; s/ *$//'; }

tmux -L "$sock" new-session -d -s viewer -x 100 -y 30 \
  "$bin/roshambo replay 1 --host 127.0.0.1 --port $port --ca certs/ca.pem --name Viewer --paused; sleep 30"
expect_screen viewer "Replay of match 1 · start"
press viewer l
expect_screen viewer "after round 1 of 4"
expect_screen viewer "$(line 1)"
press viewer Right
expect_screen viewer "after round 2 of 4"
expect_screen viewer "$(line 2)"
press viewer Left
expect_screen viewer "after round 1 of 4"
expect_screen viewer "$(line 1)"
press viewer G
expect_screen viewer "· end ($rounds rounds)"
expect_screen viewer "$(line "$rounds")"
expect_screen viewer "WINS"
press viewer g
expect_screen viewer "Replay of match 1 · start"
refuse_screen viewer "WINS"
press viewer q
for _ in $(seq 100); do
  tmux -L "$sock" capture-pane -p -t viewer | grep -q "Replay of match" || break
  sleep 0.1
done
refuse_screen viewer "Replay of match" 
echo "$name: a replay stepped round by round matches the server's record ($rounds rounds)"
