#!/usr/bin/env bash
# Three people at a party on the lobby screen, in real terminals (tmux): each sees the
# others; Alice challenges Bob, Bob accepts, and both are in room duel-1 at once; Carol
# picks duel-1 from the lobby's list of rooms and watches it; the match ends, and all
# three are back in the lobby, where the recent matches show it (the leaderboard lists
# nobody: everyone here plays on one machine with one key, so no match is rated). Then Dave challenges
# Carol, who declines, and Dave is told; again, and Carol declines all of his
# challenges for the evening (b): he is told so, and his next is refused. Dave enters the
# tournament and quits: the first q asks, another key stays, q q withdraws him and leaves.
# Then Alice and Bob enter the tournament (t):
# it starts with two, both are seated in its room, play, and are back in the lobby,
# which names the champion. Last, Erin stops the lobby with Ctrl-Z and continues it with
# fg: the lobby is drawn again and takes keys at once. Exits non-zero on the first screen that is not
# as expected, printing it. Needs `swift build` first, and tmux.
set -euo pipefail
name=tmux-lobby
source "$(dirname "$0")/tmux-lib.sh"
start_server --best-of 1 --tournament single-elimination --tournament-players 2 \
  --tournament-pause 0.2

start_person() {  # name
  tmux -L "$sock" new-session -d -s "$1" -x 90 -y 24 \
    "cd '$work' && '$bin/roshambo' lobby --host 127.0.0.1 --port $port --name $1; echo EXIT=\$?; sleep 60"
}

start_person Alice
expect_screen Alice "Roshambo lobby · you are Alice"
start_person Bob
# Bob is in Alice's list before Carol comes: the selection goes to the first who came.
expect_screen Alice "Bob · in the lobby"
start_person Carol
expect_screen Alice "Carol · in the lobby"
expect_screen Carol "Bob · in the lobby"

echo "tmux-lobby: Alice challenges Bob (the first person selected), who accepts"
expect_screen Alice "▸ Bob · in the lobby"
press Alice c
expect_screen Alice "You challenged Bob: best of 1, classic"
expect_screen Bob "Alice challenges you: best of 1, classic · a accept, d decline"
press Bob a
expect_screen Alice "Room duel-1"
expect_screen Bob "Room duel-1"
expect_screen Bob "Choose your weapon"

echo "tmux-lobby: Carol watches duel-1 from the lobby's rooms"
expect_screen Carol "duel-1: Alice 0 – 0 Bob, round 1"
press Carol Tab
expect_screen Carol "▸ duel-1"
press Carol w
expect_screen Carol "Room duel-1"
expect_screen Carol "Alice"

echo "tmux-lobby: they play; all three are back in the lobby after"
press Alice r
press Bob s
expect_screen Alice "You win"
expect_screen Carol "Alice wins"
press Alice q
press Bob q
press Carol q
for person in Alice Bob Carol; do expect_screen "$person" "Roshambo lobby · you are $person"; done
expect_screen Carol "nobody yet: rated matches with several people list you"

echo "tmux-lobby: Carol replays the match from the lobby's recent matches"
expect_screen Carol "#1 duel-1: Alice 1–0 Bob, Alice won"
press Carol r
expect_screen Carol "Replay of match 1"
press Carol G
expect_screen Carol "· end (1 round)"
expect_screen Carol "Alice wins"
press Carol q
expect_screen Carol "Roshambo lobby · you are Carol"

echo "tmux-lobby: Dave challenges Carol, who declines"
start_person Dave
expect_screen Dave "Roshambo lobby · you are Dave"
for _ in 1 2 3; do
  tmux -L "$sock" capture-pane -p -t Dave | grep -qF "▸ Carol" && break
  press Dave j
  sleep 0.2
done
expect_screen Dave "▸ Carol · in the lobby"
press Dave c
expect_screen Carol "Dave challenges you"
press Carol d
expect_screen Dave "Carol declined your challenge."

echo "tmux-lobby: Dave again; Carol declines all of his challenges for the evening (b)"
press Dave c
expect_screen Carol "from Dave this evening"
press Carol b
expect_screen Carol "You decline Dave's challenges for the rest of the evening."
expect_screen Dave "Carol declined your challenge, and declines"
press Dave c
expect_screen Dave "Carol declines your challenges for this evening."

echo "tmux-lobby: Dave enters the tournament and quits: asked first, any other key stays, q q withdraws"
press Dave t
expect_screen Carol "taking entries, 1 entered"
press Dave q
expect_screen Dave "Leaving withdraws you from the tournament"
press Dave j
expect_screen Dave "You stay in the lobby and in the tournament."
refuse_screen Dave "EXIT="
press Dave q
expect_screen Dave "Leaving withdraws you from the tournament"
press Dave q
expect_screen Dave "EXIT=0"
# Withdrawn at once, not held for the grace period.
expect_screen Carol "taking entries, 0 entered"

echo "tmux-lobby: Alice and Bob enter the tournament; it seats them, and names the champion"
expect_screen Alice "Tournament (single-elimination): taking entries, 0 entered"
press Alice t
expect_screen Alice "You entered the tournament"
expect_screen Carol "taking entries, 1 entered"
press Bob t
expect_screen Alice "Room cup-1-1-1"
expect_screen Bob "Room cup-1-1-1"
expect_screen Bob "Choose your weapon"
press Alice p
press Bob r
expect_screen Alice "You win"
press Alice q
press Bob q
expect_screen Carol "Tournament (single-elimination): finished, Alice is the champion"
expect_screen Alice "Roshambo lobby · you are Alice"
expect_screen Bob "finished, Alice is the champion"

echo "tmux-lobby: Erin stops the lobby (Ctrl-Z) and continues it (fg): the screen and the keys come back"
# In a shell with job control, as a person runs it.
tmux -L "$sock" new-session -d -s Erin -x 90 -y 24 "cd '$work' && exec bash --norc --noprofile -i"
press Erin "'$bin/roshambo' lobby --host 127.0.0.1 --port $port --name Erin"
press Erin Enter
expect_screen Erin "Roshambo lobby · you are Erin"
press Erin C-z
expect_screen Erin "Stopped"
# The shell's own screen, not the lobby's: the terminal was given back.
refuse_screen Erin "Roshambo lobby · you are Erin"
press Erin fg
press Erin Enter
expect_screen Erin "Roshambo lobby · you are Erin"
refuse_screen Erin "Stopped"
# A key works at once (no Enter: the keys are raw again), and echoes nothing.
press Erin r
expect_screen Erin "Replay of match"
press Erin q
expect_screen Erin "Roshambo lobby · you are Erin"
# A second Ctrl-Z stops it too: the shell has the keys (its echo's output shows), and fg
# brings the lobby back again.
press Erin C-z
# As a person would, wait for the shell's notice of this second stop before typing: keys
# typed while the lobby still runs are the lobby's.
for _ in $(seq 100); do
  [ "$(tmux -L "$sock" capture-pane -p -t Erin | grep -c Stopped)" -ge 2 ] && break
  sleep 0.1
done
expect_screen Erin "Stopped"
press Erin 'echo AGAIN-$((1+1))'
press Erin Enter
expect_screen Erin "AGAIN-2"
press Erin fg
press Erin Enter
expect_screen Erin "Roshambo lobby · you are Erin"
press Erin q
# As a person would, wait for the lobby to be gone before typing: keys typed while it still
# runs are its own, and its giving the terminal back discards those it did not read.
for _ in $(seq 100); do
  tmux -L "$sock" capture-pane -p -t Erin | grep -qF "Roshambo lobby · you are Erin" || break
  sleep 0.1
done
refuse_screen Erin "Roshambo lobby · you are Erin"
# fg gives the lobby's exit status.
press Erin "echo EXIT=\$?"
press Erin Enter
expect_screen Erin "EXIT=0"

for person in Alice Bob Carol Dave; do press "$person" q; done
for person in Alice Bob Carol Dave; do expect_screen "$person" "EXIT=0"; done
# The matches played from the lobby left nothing under it: their results are in the
# lobby's recent matches, not piled up in the shell for when the lobby goes.
for person in Alice Bob; do refuse_screen "$person" "the match"; done
echo "tmux-lobby: a challenge, a match, a spectator from the lobby's list, back to the lobby, a tournament, Ctrl-Z and fg: OK"
