#!/usr/bin/env bash
# Two players in real terminals: starts roshambo-server, runs `roshambo play` for Alice
# and Bob in tmux (80x24), types their keys with send-keys, and checks what each screen
# shows with capture-pane, through a whole match. Exits non-zero on the first screen
# that is not as expected, printing it. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-play
source "$(dirname "$0")/tmux-lib.sh"
# A short idle limit, so the test can think for longer than it (and the players ping).
start_server --idle-seconds 6

start_player() {  # name
  tmux -L "$sock" new-session -d -s "$1" -x 80 -y 24 \
    "cd '$work' && '$bin/roshambo' play --host 127.0.0.1 --port $port --name $1 --room duel --keepalive 2; echo EXIT=\$?; sleep 60"
}

start_player Alice
expect_screen Alice "Waiting for an opponent"
start_player Bob
expect_screen Alice "Choose your weapon: [r]ock [p]aper [s]cissors"
expect_screen Bob "Choose your weapon: [r]ock [p]aper [s]cissors"

# Both think for longer than the server's idle limit: the clients' pings keep them in.
sleep 9
expect_screen Alice "Choose your weapon: [r]ock [p]aper [s]cissors"
expect_screen Bob "Choose your weapon: [r]ock [p]aper [s]cissors"
# A healthy link's round trip is not worth a line: none is shown.
refuse_screen Alice "ping "
refuse_screen Alice "Lost the connection"

press Alice r
expect_screen Alice "You picked rock"
expect_screen Bob "Alice has chosen. Your move."
press Bob s
expect_screen Alice "You win the round: rock crushes scissors"
expect_screen Bob "1. Alice rock, you scissors: Alice wins"

press Bob p
expect_screen Alice "Bob has chosen. Your move."
press Alice 2     # the second weapon: paper
expect_screen Bob "Round 2 is a draw: both chose paper"

press Alice s
press Bob p
expect_screen Alice "YOU WIN!"
expect_screen Bob "PLAYER 1 WINS! Alice wins."
expect_screen Alice "You win the match 2–0!"
expect_screen Bob "Alice wins the match 2–0."
echo "--- Bob's screen at the end of the match:"
tmux -L "$sock" capture-pane -p -t Bob | sed '/^$/N;/^\n$/D'

press Alice q
press Bob q
expect_screen Alice "EXIT=0"
expect_screen Bob "EXIT=0"
echo "tmux-play: a whole match in two terminals: OK"
