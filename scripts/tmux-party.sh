#!/usr/bin/env bash
# Three players at a party, in real terminals (tmux), by quick match: Alice and Bob are
# paired; Carol arrives and waits; Bob quits mid-match (q asks first, q again gives up),
# and Alice, stranded, is paired with Carol at once. Dave, asking for their full room,
# is told so and the program ends (exit 1). Then Carol presses Ctrl-C (it asks
# first; the match goes on), and again (she gives up: Alice wins by forfeit, Carol's
# program exits 130). Carol's terminal is 60x20: her screen keeps the room line and both
# scores however long the history grows. Exits non-zero on the first screen that is not
# as expected, printing it. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-party
source "$(dirname "$0")/tmux-lib.sh"
start_server --best-of 99

start_player() {  # name columns rows
  tmux -L "$sock" new-session -d -s "$1" -x "$2" -y "$3" \
    "cd '$work' && '$bin/roshambo' play --host 127.0.0.1 --port $port --name $1; echo EXIT=\$?; sleep 60"
}

start_player Alice 80 24
expect_screen Alice "Waiting for an opponent"
start_player Bob 80 24
expect_screen Alice "Choose your weapon"
expect_screen Bob "Choose your weapon"
expect_screen Bob "Room quick-1"
start_player Carol 60 20
expect_screen Carol "Waiting for an opponent"
expect_screen Carol "Room quick-2"

echo "tmux-party: Bob quits mid-match: q asks first"
press Bob q
expect_screen Bob "Give up the match? Press q again"
refuse_screen Alice "gave up"
press Bob q
expect_screen Bob "EXIT=0"

echo "tmux-party: Alice, left alone, is paired with Carol at once"
expect_screen Alice "quick match paired you in room quick-2"
expect_screen Alice "Room quick-2"
expect_screen Alice "P1 Carol"
expect_screen Carol "P2 Alice"
expect_screen Carol "Choose your weapon"

echo "tmux-party: Dave asks for the full room quick-2: told so at once, exit 1"
tmux -L "$sock" new-session -d -s Dave -x 80 -y 24 \
  "cd '$work' && '$bin/roshambo' play --host 127.0.0.1 --port $port --name Dave --room quick-2; echo EXIT=\$?; sleep 60"
expect_screen Dave "already has two players"
expect_screen Dave "EXIT=1"

echo "tmux-party: many drawn rounds on Carol's 60x20 screen"
for round in $(seq 12); do
  press Alice r
  press Carol r
  expect_screen Carol "$round. you rock, Alice rock: draw"
  expect_screen Alice "$round. Carol rock, you rock: draw"
done
top="$(tmux -L "$sock" capture-pane -p -t Carol | head -n 1)"
case "$top" in
  "Room quick-2"*) ;;
  *) echo "tmux-party: Carol's top line is not the room: $top"; tmux -L "$sock" capture-pane -p -t Carol; exit 1 ;;
esac
expect_screen Carol "P1 Carol (you)  score 0"
expect_screen Carol "P2 Alice  score 0"
echo "--- Carol's 60x20 screen after 12 rounds:"
tmux -L "$sock" capture-pane -p -t Carol

echo "tmux-party: Carol presses Ctrl-C: asked first, then she gives up (exit 130)"
press Carol C-c
expect_screen Carol "Give up the match? Press Ctrl-C again"
refuse_screen Alice "gave up"
press Carol C-c
expect_screen Carol "EXIT=130"
# The screen is put back as it was: nothing of the running match stays in the shell.
refuse_screen Carol "Choose your weapon"
expect_screen Alice "Carol gave up the match in round"
expect_screen Alice ": you win by forfeit."
expect_screen Alice "YOU WIN!"

press Alice q   # no match running: quits at once
expect_screen Alice "EXIT=0"
echo "tmux-party: quick match re-pairs a stranded player; quitting asks first; Ctrl-C exits 130; small screens keep their header: OK"
