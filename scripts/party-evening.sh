#!/usr/bin/env bash
# A whole party evening (issue 36, "The evening as a test"): the packaged binaries
# (scripts/package.sh) on seven hosts, network namespaces joined by veth to one bridge
# (the host's machine 10.78.0.1, players on .2 to .7), no Swift on PATH. Six players, each
# in a real terminal (tmux: 80×24, 60×20 and 120×40) with a shell on their own host, and
# the host in a terminal of their own; every one of them types only what the README says
# (`./roshambo`, the lobby's keys, `./roshambo-server …` and Ctrl-C), and every check is
# on what a screen shows. In order:
#   - the host starts the server with the README's tournament command; each player runs
#     `./roshambo`, compares the identity code, answers y, and is in the lobby;
#   - everyone sits in the lobby for 90 s without a key (the server's idle limit is its
#     default, 60 s) and is still there;
#   - a challenge accepted, played, and watched by a third person from the lobby's rooms;
#   - a quick match (m) given up with q q (back to the lobby), then one given up with
#     Ctrl-C twice after an earlier lobby-started match (exit 130), and `./roshambo` again;
#   - a terminal closed mid-match (the window killed: SIGHUP): no process is left on that
#     host, the opponent sees the connection lost, and `./roshambo` run again resumes the
#     seat; the match is played to its end;
#   - a player's link down for 20 s mid-match (the veth down in their namespace): both
#     screens say so, and once it is up the match goes on and ends;
#   - a five-player single-elimination tournament: an entrant's terminal closed before it
#     starts (still entered, back with `./roshambo`), a player's terminal closed in round 1
#     (back straight into the match with `./roshambo`), every round played, the champion
#     crowned on their screen and in everyone's lobby;
#   - the host stops the server (Ctrl-C) with everyone in the lobby and starts it again:
#     every lobby says it is reconnecting and comes back by itself, the leaderboard kept;
#   - the next tournament opens by itself on the same journal; an entrant away past the
#     grace loses the entry (the lobby stops counting down with one entrant left) and is
#     told when back; five entries start it in room cup-2-1-1; an entrant with a bye goes
#     home during round 1 (q asks, q again withdraws) and their round-2 opponent wins at
#     once by walkover; another's terminal closes as round 2 starts and the grace runs
#     out (the opponent's screen says they did not come back, not that they gave up); back
#     later, the lobby tells them what it cost; the final crowns the second champion. The
#     host's terminal is checked for each drop, return and grace run out.
# On failure it prints the screens concerned and the server's log. Prints its time at the
# end (under 6 minutes). PARTY_EVENING_SNAPS=DIR keeps the screens at each step. Needs root (ip netns), iproute2, tmux, and dist/ from
# scripts/package.sh.
set -euo pipefail
started=$(date +%s)
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/netns-lib.sh
. "$root/scripts/netns-lib.sh"
needs_package party-evening

tag="pe$$"
sock="roshambo-party-evening-$$"
work="$(mktemp -d)"
log="$work/server.log"
clean_path=/usr/sbin:/usr/bin:/sbin:/bin
hosts=(srv p1 p2 p3 p4 p5 p6)
people=(alice bob carol dave erin frank)
declare -A host_of=([host]=srv [alice]=p1 [bob]=p2 [carol]=p3 [dave]=p4 [erin]=p5 [frank]=p6)
declare -A size_of=([host]=120x40 [alice]=80x24 [bob]=80x24 [carol]=60x20 [dave]=60x20
  [erin]=120x40 [frank]=120x40)
reported=""

say() { echo "party-evening: [$(($(date +%s) - started)) s] $*"; }
screen() { tmux -L "$sock" capture-pane -p -t "$1" 2>/dev/null; }
shows() { screen "$1" | grep -qF -- "$2"; }
# With PARTY_EVENING_SNAPS=DIR, keeps what WHO's screen shows now as DIR/N-LABEL-WHO.txt
# (to look at the evening's screens after a run).
snaps=0
snap() {  # label who...
  [ -n "${PARTY_EVENING_SNAPS:-}" ] || return 0
  local label="$1" who
  shift
  mkdir -p "$PARTY_EVENING_SNAPS"
  for who in "$@"; do
    snaps=$((snaps + 1))
    screen "$who" > "$PARTY_EVENING_SNAPS/$(printf %02d "$snaps")-$label-$who.txt" || true
  done
}

# Prints the screens named and the server's log (what the host's terminal showed).
dump() {
  local who
  for who in "$@"; do
    echo "--- $who's screen (${size_of[$who]:-?}):"
    screen "$who" || echo "(no terminal open)"
  done
  echo "--- the server's log (the host's terminal, last 60 lines):"
  tr -d '\r' < "$log" 2>/dev/null | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tail -n 60 || true
}
fail() {  # message, then the people whose screens matter
  local message="$1"
  shift
  echo "party-evening: FAILED: $message" >&2
  dump "$@"
  reported=1
  exit 1
}

cleanup() {
  local status=$? ns pids
  if [ "$status" != 0 ] && [ -z "$reported" ]; then
    echo "party-evening: stopped with status $status" >&2
    dump "${people[@]}"
  fi
  local socket
  socket=$(tmux -L "$sock" display-message -p '#{socket_path}' 2>/dev/null || true)
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$socket" ] && rm -f "$socket"
  # Whatever still runs on the hosts (the server, a client) ends with them.
  for ns in "${hosts[@]}"; do
    pids=$(ip netns pids "$tag-$ns" 2>/dev/null || true)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  done
  for ns in "${hosts[@]}" lan; do ip netns del "$tag-$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Waits (up to SECONDS, 15 by default) until WHO's screen shows TEXT.
wait_for() {  # who text [seconds]
  local tries=$(( ${3:-15} * 5 ))
  while [ "$tries" -gt 0 ]; do
    shows "$1" "$2" && return 0
    sleep 0.2
    tries=$((tries - 1))
  done
  fail "$1's screen never showed: $2" "$1"
}
# Waits (up to SECONDS) until WHO's screen no longer shows TEXT.
wait_gone() {  # who text [seconds]
  local tries=$(( ${3:-15} * 5 ))
  while [ "$tries" -gt 0 ]; do
    shows "$1" "$2" || return 0
    sleep 0.2
    tries=$((tries - 1))
  done
  fail "$1's screen still shows: $2" "$1"
}
# The screen must not show TEXT (checked once, after something else was awaited).
refuse() {  # who text
  if shows "$1" "$2"; then fail "$1's screen shows what it must not: $2" "$1"; fi
}
# Waits (up to SECONDS) until the server's log holds a line matching the regex.
wait_log() {  # regex [seconds]
  local tries=$(( ${2:-15} * 5 ))
  while [ "$tries" -gt 0 ]; do
    grep -qE -- "$1" "$log" 2>/dev/null && return 0
    sleep 0.2
    tries=$((tries - 1))
  done
  fail "the server never said: $1"
}
# Waits (up to SECONDS) until the server's log holds COUNT lines with TEXT.
wait_count() {  # text count [seconds]
  local tries=$(( ${3:-15} * 5 ))
  while [ "$tries" -gt 0 ]; do
    [ "$(tr -d '\r' < "$log" | grep -cF -- "$1")" -ge "$2" ] && return 0
    sleep 0.2
    tries=$((tries - 1))
  done
  fail "the server did not say $2 times: $1" host
}
press() { local who="$1"; shift; tmux -L "$sock" send-keys -t "$who" "$@"; }
# Types a command line into WHO's shell, as a person would, and presses Enter.
type_line() { tmux -L "$sock" send-keys -t "$1" -l -- "$2"; tmux -L "$sock" send-keys -t "$1" Enter; }

# The package, unpacked once for the host's machine and once for the players' (the
# binaries only read their folder; each player has a home of their own).
mkdir -p "$work/server-machine" "$work/player-machines"
tar -C "$work/server-machine" -xzf "$archive"
tar -C "$work/player-machines" -xzf "$archive"
srvdir="$(echo "$work"/server-machine/roshambo-*)"
pkg="$(echo "$work"/player-machines/roshambo-*)"

# Seven hosts on one bridge.
make_lan "$tag" 10.78.0 "${hosts[@]}"
say "seven hosts up: the server's 10.78.0.1, players' 10.78.0.2 to .7"

# Opens WHO's terminal: a shell on their host, in the package's folder, whose prompt
# shows the last command's exit status ("[130] erin$ ").
terminal() {  # who
  local who="$1" size="${size_of[$1]}" folder="$pkg"
  [ "$who" = host ] && folder="$srvdir"
  mkdir -p "$work/home-$who"
  tmux -L "$sock" new-session -d -s "$who" -x "${size%x*}" -y "${size#*x}" \
    "cd '$folder' && exec ip netns exec '$tag-${host_of[$who]}' env -i PATH='$clean_path' \
HOME='$work/home-$who' USER='$who' TERM=xterm-256color PS1='[\$?] $who\$ ' \
bash --norc --noprofile -i"
  wait_for "$who" "[0] $who\$"
}
# Closes WHO's terminal (the window killed: the shell and its program get SIGHUP), and
# checks that nothing of theirs is left running on their host (no ghost in their seat).
close_terminal() {  # who
  local who="$1" ns="$tag-${host_of[$1]}"
  [ -n "$(ip netns pids "$ns")" ] || fail "nothing runs on $who's host before the terminal closes"
  tmux -L "$sock" kill-window -t "$who"
  for _ in $(seq 50); do [ -z "$(ip netns pids "$ns")" ] && return 0; sleep 0.2; done
  ps -o pid,stat,args -p "$(ip netns pids "$ns" | paste -sd,)" || true
  fail "$who's program still runs 10 s after the terminal closed (a ghost in the seat)"
}
in_lobby() { wait_for "$1" "Roshambo lobby on Attic · you are $1" "${2:-15}"; }

# Selects TARGET in WHO's list of people (up, then down: the list changes as people come
# and go), then challenges them; TARGET accepts; both are at the match.
challenge() {  # who target
  local key
  for key in k k k k k k j j j j j j; do
    shows "$1" "▸ $2 · in the lobby" && break
    press "$1" "$key"
    sleep 0.2
  done
  wait_for "$1" "▸ $2 · in the lobby" 3
  press "$1" c
  wait_for "$2" "$1 challenges you"
  press "$2" a
  wait_for "$1" "Choose your weapon"
  wait_for "$2" "Choose your weapon"
}

serve="./roshambo-server --name Attic --tournament single-elimination --best-of 1 --tournament-players 5 --tournament-next 10"
say "the host starts the server: $serve"
terminal host
tmux -L "$sock" pipe-pane -t host -o "cat >> '$log'"
type_line host "$serve"
wait_for host "identity code:"
wait_for host "players run \`roshambo\` (the lobby)"
code="$(tr -d '\r' < "$log" | grep -o 'identity code: [0-9-]*' | head -n 1 | cut -d' ' -f3)"
[ -n "$code" ] || fail "no identity code in the host's terminal" host

say "six players run ./roshambo, compare the code ($code) and trust the server"
for who in "${people[@]}"; do terminal "$who"; type_line "$who" "./roshambo"; done
for who in "${people[@]}"; do
  wait_for "$who" "Trust this server from now on? [y/N]"
  wait_for "$who" "Its identity code is  $code"
  snap trust "$who"
  press "$who" y Enter
done
for who in "${people[@]}"; do
  in_lobby "$who"
  wait_for "$who" "Made your player identity"
done
wait_for erin "6 people"
wait_for erin "Press t to enter"
wait_for erin "It starts at 5 entrants"
snap arrived "${people[@]}"

say "everyone sits in the lobby for 90 s without a key (the server's idle limit is 60 s)"
idle_from=$(date +%s)
while [ $(($(date +%s) - idle_from)) -lt 90 ]; do
  for who in "${people[@]}"; do
    shows "$who" "Roshambo lobby on Attic · you are $who" || fail "$who was dropped from the lobby after $(($(date +%s) - idle_from)) s idle" "$who"
  done
  sleep 2
done
for who in "${people[@]}"; do in_lobby "$who" 1; refuse "$who" "] $who\$"; done
wait_for frank "6 people"
if grep -q "No message for" "$log"; then fail "the server dropped an idle connection" ; fi

say "a challenge: alice challenges bob, who accepts; carol watches it from the lobby"
challenge alice bob
wait_for alice "Room duel-1"
wait_log "bob took alice's challenge: the match is on in duel-1"
wait_for carol "duel-1: alice 0 – 0 bob, round 1"
press carol Tab
wait_for carol "▸ duel-1"
press carol w
wait_for carol "Room duel-1"
press alice r
press bob s
wait_for alice "You win"
wait_for bob "alice wins"
wait_for carol "alice wins"
for who in alice bob carol; do press "$who" q; done
for who in alice bob carol; do in_lobby "$who"; done
wait_for erin "#1 duel-1: alice 1–0 bob, alice won"
wait_log "alice beat bob 1–0 in duel-1"

say "a quick match from the lobby: dave gives it up with q q and is back in the lobby"
press dave m
wait_for dave "Waiting for an opponent"
press erin m
wait_for dave "Choose your weapon"
wait_for erin "Choose your weapon"
press dave q
wait_for dave "Give up the match? Press q again"
refuse erin "gave up"
press dave q
in_lobby dave
wait_for erin "dave gave up the match in round 1: you win by forfeit."
press erin q
in_lobby erin

say "another, after erin's first: she gives it up with Ctrl-C twice (exit 130) and comes back"
press frank m
wait_for frank "Waiting for an opponent"
press erin m
wait_for frank "Choose your weapon"
wait_for erin "Choose your weapon"
press erin C-c
wait_for erin "Give up the match? Press Ctrl-C again"
refuse frank "gave up"
press erin C-c
wait_for erin "[130] erin\$"
wait_for frank "erin gave up the match in round 1: you win by forfeit."
# Back at her shell, the match's last screen is not drawn over it, nor "Your move." said.
refuse erin "Choose your weapon"
refuse erin "Your move."
snap ctrl-c erin frank
press frank q
in_lobby frank
type_line erin "./roshambo"
in_lobby erin
refuse erin "Trust this server"

say "bob's terminal is closed mid-match; he runs ./roshambo again and is back in his seat"
challenge dave bob
wait_for bob "Room duel-2"
close_terminal bob
wait_for dave "bob  score 0  away (connection lost)"
snap closed dave
terminal bob
type_line bob "./roshambo"
wait_for bob "Room duel-2"
wait_for bob "Choose your weapon"
wait_for dave "bob  score 0  choosing"
snap resumed bob dave
press bob r
press dave p
wait_for dave "You win"
wait_for bob "dave wins"
wait_log "dave beat bob 1–0 in duel-2"
# The host's terminal said who dropped and who came back, in people's words.
wait_log "bob lost the connection in duel-2: the seat waits 30 s for them"
wait_log "bob is back in duel-2"
if grep -q "in duel-2 by forfeit" "$log"; then fail "bob forfeited the match he came back to" bob dave; fi
for who in bob dave; do press "$who" q; done
for who in bob dave; do in_lobby "$who"; done

say "carol's link is down for 20 s mid-match against frank"
challenge frank carol
wait_for carol "Room duel-3"
ip -n "$tag-p3" link set "${tag}p3a" down
down_at=$(date +%s)
wait_for carol "Lost the connection to the server" 20
carol_saw=$(($(date +%s) - down_at))
wait_for frank "carol  score 0  away (connection lost)" 20
say "the outage is on carol's screen after ${carol_saw} s, on frank's after $(($(date +%s) - down_at)) s"
refuse carol "ping"   # no round trip shown as if the link were fine
snap outage carol frank erin
# She picks rock while it is down, as anyone would who does not notice at once.
press carol r
# The outage lasts its 20 s (the screens were checked during it).
while [ $(($(date +%s) - down_at)) -lt 20 ]; do sleep 0.5; done
shows carol "Lost the connection to the server" || fail "carol's screen stopped saying the link is down while it was" carol
shows frank "carol  score 0  away (connection lost)" || fail "frank's screen stopped saying carol's link is down while it was" frank
ip -n "$tag-p3" link set "${tag}p3a" up
say "carol's link is up again"
wait_gone carol "Lost the connection to the server" 30
wait_gone frank "connection lost" 15
# Her pick made during the outage reaches the server once she is back.
wait_for frank "carol  score 0  chosen"
snap back carol frank
press frank s
wait_for carol "You win"
wait_for frank "carol wins"
for who in carol frank; do press "$who" q; done
for who in carol frank; do in_lobby "$who"; done

# The pairings of the latest round numbered $1 the host's terminal announced, one per
# line ("alice bob"), matches only.
pairings() {  # round
  tr -d '\r' < "$log" | grep -o "round $1 of [0-9]* paired: .*" | tail -n 1 \
    | sed 's/^round [0-9]* of [0-9]* paired: //' | tr ';' '\n' | tr ',' '\n' \
    | grep ' vs ' | sed 's/^ *//; s/ vs / /'
}
# Plays room ROOM between P1 (rock, wins) and P2 (scissors) and brings both back to the
# lobby (q), or leaves the champion on their screen.
play_cup_match() {  # room p1 p2
  local room="$1" p1="$2" p2="$3"
  wait_for "$p1" "Room $room"
  wait_for "$p2" "Room $room"
  wait_for "$p1" "Choose your weapon"
  wait_for "$p2" "Choose your weapon"
  press "$p1" r
  press "$p2" s
  wait_for "$p1" "You win"
  wait_for "$p2" "$p1 wins"
}

say "the tournament: alice and bob enter; bob's terminal closes before it starts"
press alice t
wait_for alice "You are in: your matches start by themselves"
wait_log "alice entered the tournament \(1 of 5\)"
press bob t
wait_for bob "You are in: your matches start by themselves"
wait_log "bob entered the tournament \(2 of 5\)"
wait_for frank "It starts in "
close_terminal bob
wait_for frank "entered: alice, bob"
snap entrant-gone frank
terminal bob
type_line bob "./roshambo"
in_lobby bob
wait_for bob "You are in: your matches start by themselves"
if grep -q "bob left the tournament" "$log"; then fail "bob's entry was dropped while he came back" bob; fi
say "carol, dave and erin enter: five, and it starts"
for who in carol dave; do
  press "$who" t
  wait_for "$who" "You are in: your matches start by themselves"
done
press erin t   # the fifth: seated at once, or told she is in
wait_log "erin entered the tournament \(5 of 5\)"
wait_log "round 1 of 3 paired: "
read -r a b <<< "$(pairings 1)"
[ -n "$b" ] || fail "no match in round 1: $(grep -a 'round 1 of' "$log")"
say "round 1: $a vs $b in cup-1-1-1; $b's terminal closes during it"
wait_for "$a" "Room cup-1-1-1"
wait_for "$a" "tournament, round 1 of 3"
# Those with a bye are told so in their lobby (carol's is 60×20), above the pairing.
for who in $(tr -d '\r' < "$log" | grep -o "[a-z]* has a bye" | sed 's/ has a bye//' | sort -u); do
  wait_for "$who" "You have a bye in round 1: it counts as a win"
  wait_for "$who" "cup-1-1-1: $a vs $b"
done
echo "--- carol's lobby (60×20) during round 1:"; screen carol
wait_for "$b" "Room cup-1-1-1"
wait_for "$b" "Choose your weapon"
close_terminal "$b"
wait_for "$a" "$b  score 0  away (connection lost)"
snap cup-closed "$a"
terminal "$b"
type_line "$b" "./roshambo"
play_cup_match cup-1-1-1 "$a" "$b"
wait_for "$b" "You are out of the tournament"
snap cup-over "$a" "$b"
for who in "$a" "$b"; do press "$who" q; done
for who in "$a" "$b"; do in_lobby "$who"; done

wait_log "round 2 of 3 paired: "
mapfile -t round2 < <(pairings 2)
[ "${#round2[@]}" = 2 ] || fail "round 2 has not two matches: ${round2[*]}"
read -r c d <<< "${round2[0]}"
read -r e f <<< "${round2[1]}"
say "round 2: $c vs $d in cup-1-2-1, $e vs $f in cup-1-2-2"
play_cup_match cup-1-2-1 "$c" "$d"
play_cup_match cup-1-2-2 "$e" "$f"
for who in "$c" "$d" "$e" "$f"; do press "$who" q; done
for who in "$c" "$d" "$e" "$f"; do in_lobby "$who"; done

wait_log "round 3 of 3 paired: "
read -r g h <<< "$(pairings 3)"
say "the final: $g vs $h in cup-1-3-1; frank watches it from the lobby"
wait_for "$g" "tournament final"
wait_for frank "cup-1-3-1: $g 0 – 0 $h"
press frank Tab
wait_for frank "▸ cup-1-3-1"
press frank w
wait_for frank "Room cup-1-3-1"
play_cup_match cup-1-3-1 "$g" "$h"
wait_for "$g" "YOU ARE THE CHAMPION!"
wait_for frank "The tournament is over: $g is the champion. Press q to go back."
snap final "$g" "$h" frank
press frank q
in_lobby frank
wait_log "$g is the champion"
for who in "$g" "$h"; do press "$who" q; done
for who in "$g" "$h"; do in_lobby "$who"; done
wait_for "$g" "You are the champion! Congratulations!"
wait_for frank "finished, $g is the champion"
champion="$g"

say "the host stops the server (Ctrl-C) with everyone in the lobby, and starts it again"
# Erin's lobby has the final's result before the leaderboard is read off it.
wait_for erin "finished, $champion is the champion"
wait_for erin "cup-1-3-1: $g 1–0 $h, $g won"
board_before="$(screen erin | sed -n '/^Leaderboard/,/^[A-Z]/p' | grep -E '^  ([0-9]| +·)')"
press host C-c
wait_for host "roshambo-server stopped"
# Each lobby stays on its screen and says it is reaching the server again.
for who in "${people[@]}"; do wait_for "$who" "reconnecting (try" 20; done
snap restart "${people[@]}" host
type_line host "$serve"
wait_count "identity code: $code" 2
for who in "${people[@]}"; do wait_for "$who" "Back in the lobby" 30; done
wait_for erin "6 people"
board_after="$(screen erin | sed -n '/^Leaderboard/,/^[A-Z]/p' | grep -E '^  ([0-9]| +·)')"
[ -n "$board_before" ] && [ "$board_before" = "$board_after" ] \
  || fail "the leaderboard changed over the restart: before
$board_before
after
$board_after" erin

say "the next tournament opens by itself on the same journal; five enter and it starts"
wait_for erin "Tournament (single-elimination): taking entries, 0 entered" 30
wait_count "The single-elimination tournament is open: players press t" 2
wait_for frank "Press t to enter"
# An entry lost: frank enters second and his terminal closes; he is not back within the
# grace (30 s), so the entry goes, and he is told when he comes back.
{
  say "frank enters second; his terminal closes and he is away past the grace"
  press alice t
  wait_for alice "You are in: your matches start by themselves"
  press frank t
  wait_for frank "You are in: your matches start by themselves"
  wait_for alice "It starts in "
  close_terminal frank
  wait_log "frank left the tournament \(1 entered\)" 40
  wait_for alice "entered: alice"
  # No countdown to a start that cannot come with one entrant: it waits for the five.
  wait_for alice "It starts at 5 entrants"
  refuse alice "It starts in "
  terminal frank
  type_line frank "./roshambo"
  in_lobby frank
  wait_for frank "Press t to enter"
  # Told, in a notice, that the entry went while he was away.
  wait_for frank "Your tournament entry was withdrawn"
}
for who in alice bob carol dave; do
  shows "$who" "You are in: your matches start by themselves" && continue
  press "$who" t
  wait_for "$who" "You are in: your matches start by themselves"
done
press frank t
wait_count "entered the tournament (5 of 5)" 2
wait_count "round 1 of 3 paired: " 2
read -r a b <<< "$(pairings 1)"
wait_for "$a" "Room cup-2-1-1"
wait_for "$b" "Room cup-2-1-1"
wait_for erin "cup-2-1-1: $a vs $b"
snap cup-2 "${people[@]}" host
# Nobody was thrown back to their shell on the way.
for who in "${people[@]}"; do refuse "$who" "] $who\$"; done

# The rest of this tournament: one entrant goes home during round 1 (asked first, then
# withdrawn), and their next opponent is not kept waiting; another's terminal closes at
# the start of round 2 and they come back after the grace, told what the absence cost;
# the host's terminal says each.
mapfile -t byes < <(tr -d '\r' < "$log" | grep -o "round 1 of [0-9]* paired: .*" | tail -n 1 \
  | grep -o "[a-z]* has a bye" | sed 's/ has a bye//')
[ "${#byes[@]}" = 3 ] || fail "round 1 of the second tournament has not three byes: ${byes[*]}"
home="${byes[0]}"
say "$home goes home during round 1: q asks, q again withdraws and leaves"
press "$home" q
wait_for "$home" "Leaving withdraws you from the tournament: press q again to leave"
press "$home" q
wait_for "$home" "[0] $home\$"
wait_log "$home withdrew from the tournament: their opponents win their matches"
play_cup_match cup-2-1-1 "$a" "$b"
for who in "$a" "$b"; do press "$who" q; done
for who in "$a" "$b"; do in_lobby "$who"; done
wait_count "round 2 of 3 paired: " 2 30
paired_at=$(date +%s)
mapfile -t round2 < <(pairings 2)
[ "${#round2[@]}" = 2 ] || fail "round 2 of the second tournament has not two matches: ${round2[*]}"
for i in 0 1; do
  read -r p1 p2 <<< "${round2[$i]}"
  if [ "$p1" = "$home" ] || [ "$p2" = "$home" ]; then
    walkover="cup-2-2-$((i + 1))"
    [ "$p1" = "$home" ] && winner="$p2" || winner="$p1"
  else
    played="cup-2-2-$((i + 1))"; stays="$p1"; away="$p2"
  fi
done
[ -n "${walkover:-}" ] && [ -n "${played:-}" ] || fail "round 2 does not pair $home: ${round2[*]}"
say "round 2: $winner wins $walkover by walkover at once; $away's terminal closes as $played starts"
wait_for "$winner" "$home withdrew from the tournament: you win by walkover." 10
[ $(($(date +%s) - paired_at)) -lt 10 ] || fail "$winner waited for the walkover" "$winner"
snap walkover "$winner"
wait_for "$away" "Room $played"
wait_for "$stays" "Room $played"
close_terminal "$away"
wait_for "$stays" "$away  score 0  away (connection lost)"
wait_log "$away lost the connection in $played: the seat waits 30 s for them"
# The grace (30 s) runs out: the match is $stays's, said as what happened.
wait_log "$away was not back in $played within 30 s: the seat is given up" 45
wait_for "$stays" "did not come back in time"
refuse "$stays" "gave up"
snap grace-out "$stays"
press "$winner" q
press "$stays" q
for who in "$winner" "$stays"; do in_lobby "$who"; done
say "$away comes back after the grace: the lobby says what the absence cost"
terminal "$away"
type_line "$away" "./roshambo"
in_lobby "$away"
# (On a 60-column terminal the line is cut after "match": the start is what is checked.)
wait_for "$away" "While you were away, you lost a tournament match"
snap back-after-grace "$away"
wait_log "round 3 of 3 paired: $winner vs $stays|round 3 of 3 paired: $stays vs $winner" 30
play_cup_match cup-2-3-1 "$winner" "$stays"
wait_for "$winner" "YOU ARE THE CHAMPION!"
wait_log "$winner is the champion"

took=$(($(date +%s) - started))
say "an evening on seven hosts: idle lobbies kept 90 s, a challenge played and watched, quick matches given up with q q and Ctrl-C, a closed terminal resumed, a 20 s outage shown and recovered, a tournament with two dropped players back, $champion champion, a server restart, the next tournament on the same journal with one entrant gone home (a walkover at once) and one back after the grace (told what it cost), $winner champion: OK"
echo "party-evening: took $took s ($((took / 60)) min $((took % 60)) s)"
