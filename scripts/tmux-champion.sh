#!/usr/bin/env bash
# The champion told on their own screen when their final match is not the last to end, in
# real terminals (tmux): Alice, Bob, Carol and Dave play a round robin (best of 1, three
# rounds of two matches). Alice wins every match; in the last round hers ends first, and
# her screen says the champion is named when the round's other match ends, then, once it
# has, "YOU ARE THE CHAMPION!". Exits non-zero on the first screen that is not as
# expected, printing it. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-champion
source "$(dirname "$0")/tmux-lib.sh"
# One machine, one address: it must take four entries.
start_server --best-of 1 --tournament round-robin --tournament-players 4 \
  --tournament-pause 0.5 --tournament-entries-per-address 0

people=(Alice Bob Carol Dave)
for person in "${people[@]}"; do
  tmux -L "$sock" new-session -d -s "$person" -x 80 -y 24 \
    "cd '$work' && '$bin/roshambo' lobby --host 127.0.0.1 --port $port --name $person; echo EXIT=\$?; sleep 60"
  expect_screen "$person" "Roshambo lobby · you are $person"
done
for person in Alice Bob Carol; do
  press "$person" t
  expect_screen "$person" "You entered the tournament"
done
press Dave t   # the fourth: the tournament starts, and Dave is seated at once

# Alice plays rock and whoever meets her scissors; among the others Bob plays paper,
# Carol rock and Dave scissors, so that no match is drawn and Alice alone wins three.
pick() {  # person
  local screen
  screen="$(tmux -L "$sock" capture-pane -p -t "$1")"
  case "$1" in
    Alice) echo r ;;
    *) if grep -qE "P[12] Alice " <<< "$screen"; then echo s; else
         case "$1" in Bob) echo p ;; Carol) echo r ;; Dave) echo s ;; esac
       fi ;;
  esac
}
for round in 1 2 3; do
  for person in "${people[@]}"; do
    expect_screen "$person" "Room cup-1-$round-"
    expect_screen "$person" "Choose your weapon"
  done
  first=() second=()
  for person in "${people[@]}"; do
    if [ "$person" = Alice ] || grep -qE "P[12] Alice " <<< "$(tmux -L "$sock" capture-pane -p -t "$person")"; then
      first+=("$person")
    else
      second+=("$person")
    fi
  done
  [ "${#first[@]}" = 2 ] && [ "${#second[@]}" = 2 ] || { echo "$name: round $round is not paired in two matches"; exit 1; }
  echo "tmux-champion: round $round: ${first[*]} first, then ${second[*]}"
  for person in "${first[@]}"; do press "$person" "$(pick "$person")"; done
  expect_screen Alice "You win"
  if [ "$round" = 3 ]; then
    # Alice's last match is over, the round's other is not: she is told when she will know.
    expect_screen Alice "The champion is named when the last round's other matches"
    refuse_screen Alice "CHAMPION"
  fi
  for person in "${second[@]}"; do press "$person" "$(pick "$person")"; done
  for person in "${second[@]}"; do expect_screen "$person" "win"; done
done
expect_screen Alice "YOU ARE THE CHAMPION!"
press Alice q
expect_screen Alice "finished, Alice is the champion"
echo "tmux-champion: the champion told on her own screen, her final not the last to end: OK"
