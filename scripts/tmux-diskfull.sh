#!/usr/bin/env bash
# The server's disk fills mid-match, in real terminals: the journal's data directory is a
# small tmpfs (so this needs root, as mount does; without it the scene is skipped, exit
# 0, saying so). Alice and Bob each pick while nothing can be saved: their screens say
# the server cannot save, and nothing is lost; once space comes back the round resolves
# by itself, without a key pressed again (the client sends a refused pick again every
# second). Then the match is played out. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-diskfull
source "$(dirname "$0")/tmux-lib.sh"
disk="$work/disk"
mkdir -p "$disk"
if ! mount -t tmpfs -o size=4m tmpfs "$disk" 2>/dev/null; then
  echo "$name: skipped: cannot mount a small disk here (needs root)"
  exit 0
fi
trap 'umount -l "$disk" 2>/dev/null || true; cleanup' EXIT

start_server --data-dir "$disk/data" --best-of 3

start_player() {  # name
  tmux -L "$sock" new-session -d -s "$1" -x 80 -y 24 \
    "cd '$work' && '$bin/roshambo' play --host 127.0.0.1 --port $port --name $1 --room den; echo EXIT=\$?; sleep 60"
}
start_player Alice
expect_screen Alice "Waiting for an opponent"
start_player Bob
expect_screen Alice "Choose your weapon: [r]ock [p]aper [s]cissors"
expect_screen Bob "Choose your weapon: [r]ock [p]aper [s]cissors"

# The disk fills: nothing can be saved, and both pick.
dd if=/dev/zero of="$disk/fill" bs=64k 2>/dev/null || true
press Alice r
expect_screen Alice "The server cannot save right now"
press Bob s
expect_screen Bob "The server cannot save right now"
refuse_screen Alice "You win the round"
# Space comes back: the picks go again by themselves, and the round resolves.
rm -f "$disk/fill"
expect_screen Alice "You win the round: rock crushes scissors"
expect_screen Bob "1. Alice rock, you scissors: Alice wins"
grep -q "journal write failed" server.out || { echo "$name: the server's log never said why"; cat server.out; exit 1; }

press Alice p
press Bob r
expect_screen Alice "YOU WIN!"
press Alice q
press Bob q
expect_screen Alice "EXIT=0"
expect_screen Bob "EXIT=0"
echo "tmux-diskfull: the disk filled mid-match; the picks went through once it had space: OK"
