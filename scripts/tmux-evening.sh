#!/usr/bin/env bash
# What broke a real party in its first minutes, in real terminals (tmux): people who sit
# in the lobby without pressing a key stay there past the server's idle limit; Ctrl-C
# asks and then gives up a match started from the lobby (after earlier matches, a watch
# and a replay from the same lobby); Ctrl-C leaves a replay started from the lobby; and a
# terminal closed during a match started from the lobby ends its program (no ghost left
# holding the seat), and `roshambo` run again takes the seat back; and a server killed and started again with people in the lobby
# finds them back in it by themselves. The server's idle limit is 5 s here and the
# clients ping every 0.5 s, so minutes of a real evening take seconds. Needs
# `swift build` first, and tmux.
set -euo pipefail
name=tmux-evening
source "$(dirname "$0")/tmux-lib.sh"
start_server --best-of 1 --idle-seconds 5

start_person() {  # name
  tmux -L "$sock" new-session -d -s "$1" -x 80 -y 24 \
    "cd '$work' && XDG_CONFIG_HOME='$work/config-$1' '$bin/roshambo' lobby --host 127.0.0.1 --port $port --keepalive 0.5 --name $1; echo EXIT=\$?; sleep 60"
}

# Whether a client of that name still runs (a closed terminal must end it).
client_running() { pgrep -f -- "--port $port --keepalive 0.5 --name $1\$" >/dev/null; }

for person in Alice Bob Carol; do start_person "$person"; done
for person in Alice Bob Carol; do expect_screen "$person" "Roshambo lobby · you are $person"; done
# Each is new here: the lobby says, above all else, that it made their identity.
expect_screen Carol "Made your player identity"
expect_screen Alice "Carol · in the lobby"

echo "tmux-evening: everyone idles for 2.5 idle limits, and is still in the lobby"
sleep 12.5
for person in Alice Bob Carol; do
  refuse_screen "$person" "EXIT="
  expect_screen "$person" "Roshambo lobby · you are $person"
done
expect_screen Alice "3 people"

challenge() {  # from to
  # Up, then down: someone who switched connections (a match's for the lobby's) is gone
  # from the list for a moment, and the selection may have moved below them.
  for key in k k k k j j j j; do
    tmux -L "$sock" capture-pane -p -t "$1" | grep -qF "▸ $2 · in the lobby" && break
    press "$1" "$key"
    sleep 0.2
  done
  expect_screen "$1" "▸ $2 · in the lobby"
  press "$1" c
  expect_screen "$2" "$1 challenges you"
  press "$2" a
  expect_screen "$1" "Choose your weapon"
  expect_screen "$2" "Choose your weapon"
}

echo "tmux-evening: a match from the lobby, Carol watching it, all back in the lobby"
challenge Alice Bob
expect_screen Carol "duel-1: Alice 0 – 0 Bob"
press Carol Tab
expect_screen Carol "▸ duel-1"
press Carol w
expect_screen Carol "Room duel-1"
press Alice r
press Bob s
expect_screen Alice "You win"
for person in Alice Bob Carol; do press "$person" q; done
for person in Alice Bob Carol; do expect_screen "$person" "Roshambo lobby · you are $person"; done

echo "tmux-evening: Carol replays it from the lobby and comes back with q"
expect_screen Carol "#1 duel-1: Alice 1–0 Bob"
press Carol r
expect_screen Carol "Replay of match 1"
press Carol q
expect_screen Carol "Roshambo lobby · you are Carol"

echo "tmux-evening: in a second match from the lobby, Ctrl-C asks, and a second gives up (130)"
challenge Alice Bob
press Alice C-c
expect_screen Alice "Give up the match? Press Ctrl-C again"
press Alice C-c
expect_screen Alice "EXIT=130"
expect_screen Bob "by forfeit"
press Bob q
expect_screen Bob "Roshambo lobby · you are Bob"

echo "tmux-evening: Ctrl-C in a replay started from the lobby leaves (130)"
press Carol r
expect_screen Carol "Replay of match"
press Carol C-c
expect_screen Carol "EXIT=130"

echo "tmux-evening: a terminal closed during a match from the lobby ends its program"
start_person Dave
expect_screen Dave "Roshambo lobby · you are Dave"
challenge Dave Bob
client_running Bob || { echo "$name: Bob's client is not running before his terminal closes"; exit 1; }
tmux -L "$sock" kill-session -t Bob
for _ in $(seq 100); do client_running Bob || break; sleep 0.1; done
if client_running Bob; then
  echo "$name: Bob's client still runs 10 s after his terminal closed (a ghost in his seat)"
  exit 1
fi
expect_screen Dave "Bob  score 0  away (connection lost)"

echo "tmux-evening: Bob runs roshambo again and is back in his seat, the match goes on"
start_person Bob
expect_screen Bob "Room duel-3"
expect_screen Bob "Choose your weapon"
expect_screen Dave "Bob  score 0  choosing"
press Bob r
press Dave p
expect_screen Dave "You win"
expect_screen Bob "Dave wins"
press Bob q
press Dave q
for person in Bob Dave; do expect_screen "$person" "Roshambo lobby · you are $person"; done

echo "tmux-evening: Ctrl-C in the lobby after all that leaves (130)"
press Dave C-c
expect_screen Dave "EXIT=130"
press Bob q
expect_screen Bob "EXIT=0"
echo "tmux-evening: the server is killed with people in the lobby and started again; they are back by themselves"
start_person Erin
start_person Frank
expect_screen Erin "Frank · in the lobby"
kill -9 "$server_pid"
wait "$server_pid" 2>/dev/null || true
# The lobby stays on the screen and says it is reaching the server again.
for person in Erin Frank; do expect_screen "$person" "reconnecting (try"; done
# Nothing new starts while the server is away: a quick match is refused, and said.
press Erin m
expect_screen Erin "The server is not answering: this lobby is reconnecting by itself"
"$bin/roshambo-server" --host 127.0.0.1 --port "$port" --data-dir data --log-level error \
  --no-announce --best-of 1 --idle-seconds 5 > server-again.out 2>&1 &
server_pid=$!
for person in Erin Frank; do expect_screen "$person" "Back in the lobby"; done
expect_screen Erin "Frank · in the lobby"
for person in Erin Frank; do press "$person" q; done
for person in Erin Frank; do expect_screen "$person" "EXIT=0"; done

echo "tmux-evening: idle lobby kept, Ctrl-C and a closed terminal after lobby-started screens, back after a restart: OK"
