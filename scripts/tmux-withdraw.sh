#!/usr/bin/env bash
# Going home in the middle of a tournament, in real terminals (tmux): Alice, Bob and
# Carol enter a round robin; Alice, with the bye in round 1, quits the lobby: the first q
# asks, another key stays, and Ctrl-C withdraws her and leaves (as q twice would). Her later matches are walkovers at once
# (not after the 30 s grace): Bob's and Carol's screens say she withdrew, and the
# tournament finishes without her. Exits non-zero on the first screen that is not as
# expected, printing it. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-withdraw
source "$(dirname "$0")/tmux-lib.sh"
# One machine, one address: it must take three entries.
start_server --best-of 1 --tournament round-robin --tournament-players 3 \
  --tournament-pause 0.5 --tournament-entries-per-address 0

start_person() {  # name
  tmux -L "$sock" new-session -d -s "$1" -x 80 -y 24 \
    "cd '$work' && '$bin/roshambo' lobby --host 127.0.0.1 --port $port --name $1; echo EXIT=\$?; sleep 60"
}

for person in Alice Bob Carol; do
  start_person "$person"
  expect_screen "$person" "Roshambo lobby · you are $person"
done

echo "tmux-withdraw: all three enter; round 1 pairs Bob with Carol, Alice has the bye"
for person in Alice Bob; do
  press "$person" t
  expect_screen "$person" "You entered the tournament"
done
press Carol t
expect_screen Bob "Room cup-1-1-1"
expect_screen Carol "Room cup-1-1-1"
expect_screen Alice "You have a bye in round 1"

echo "tmux-withdraw: Alice goes home: q asks, another key stays, Ctrl-C withdraws her and leaves"
press Alice q
expect_screen Alice "Leaving withdraws you from the tournament"
refuse_screen Alice "EXIT="
press Alice x
expect_screen Alice "You stay in the lobby and in the tournament."
refuse_screen Alice "EXIT="
press Alice C-c
expect_screen Alice "EXIT=130"

echo "tmux-withdraw: Bob beats Carol; round 2 (Alice against Bob) is Bob's at once"
press Bob r
press Carol s
expect_screen Bob "You win"
expect_screen Bob "Room cup-1-2-1"
expect_screen Bob "Alice withdrew from the tournament: you win by walkover."
refuse_screen Bob "away (connection lost)"

echo "tmux-withdraw: round 3 (Alice against Carol) is Carol's at once; the tournament ends"
expect_screen Carol "Alice withdrew from the tournament: you win by walkover."
press Bob q
expect_screen Bob "finished, Bob is the champion"
expect_screen Bob "Alice: 1 won, 2 lost (rounds +0), withdrew"
echo "tmux-withdraw: a withdrawal mid-tournament, its walkovers at once: OK"
