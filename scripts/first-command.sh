#!/usr/bin/env bash
# The README's first command as a newcomer types it: a fresh clone with nothing built,
# `swift run roshambo play --vs-bot` in a real terminal (tmux, 80x24), until the game
# screen shows; then one round against the bot and `q q` to leave. Prints how long the
# first screen took. Exits non-zero, printing the screen, if the game never shows.
# Needs git, tmux and the Swift toolchain.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v tmux >/dev/null || { echo "first-command: tmux is not installed" >&2; exit 69; }
work="$(mktemp -d)"
sock="roshambo-first-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q "$root" "$work/clone"
started=$(date +%s)
tmux -L "$sock" new-session -d -s newcomer -x 80 -y 24 \
  "cd '$work/clone' && swift run roshambo play --vs-bot --name Newcomer; echo EXIT=\$?; sleep 600"

screen() { tmux -L "$sock" capture-pane -p -t newcomer; }
# Up to 15 minutes on a loaded machine (about 2 on a quiet one, two cores): `roshambo`
# built from nothing, with the server's core inside it.
for _ in $(seq 1800); do
  if screen | grep -qF "Choose your weapon"; then break; fi
  if screen | grep -qF "EXIT="; then
    echo "first-command: the program ended before the game screen:"; screen; exit 1
  fi
  sleep 0.5
done
screen | grep -qF "Choose your weapon" || { echo "first-command: no game screen:"; screen; exit 1; }
echo "first-command: the game screen after $(( $(date +%s) - started )) s from a fresh clone"
# As the README says: the server's core runs inside `roshambo`; no server executable is
# built for the first command.
if [ -e "$work/clone/.build/debug/roshambo-server" ]; then
  echo "first-command: roshambo-server was built, though the README says it is not"; exit 1
fi

expect() {  # text
  for _ in $(seq 100); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  echo "first-command: the screen never showed: $1"; screen; exit 1
}
tmux -L "$sock" send-keys -t newcomer r
expect "History:"
tmux -L "$sock" send-keys -t newcomer q
tmux -L "$sock" send-keys -t newcomer q
expect "EXIT="
echo "first-command: played a round against the bot and left: OK"
