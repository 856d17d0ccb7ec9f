#!/usr/bin/env bash
# A LAN on one machine: network namespaces joined by veth to a bridge (a server host
# 10.77.0.1 and two player hosts 10.77.0.2 and .3, addresses that exist only inside these
# namespaces), running the packaged binaries (scripts/package.sh) with no Swift toolchain
# on PATH. Checks, in order:
#   - the binaries link no Swift library, and no `swift` is on the PATH they run with;
#   - the server announces itself and `roshambo servers` on a player host lists it;
#   - a bot waiting in the lobby on one host takes a challenge from a bot on another;
#   - a bot with --accept-new and no --host is refused (it would trust whichever machine
#     answered first); two bots with --host and --accept-new play a match, and the server
#     is remembered in each player's known_servers; a second match, with no --host and no
#     --accept-new, finds it and trusts it without asking;
#   - a fair match (commit-reveal) between the two hosts has every round verified;
#   - a person at a terminal (tmux) is shown the identity code and asked before trusting;
#   - bots trusting the CA file and the pinned fingerprint play a match as before;
#   - a certificate without 10.77.0.1 is refused with "name mismatch" (--ca);
#   - a server with a new certificate at the same address is refused as changed;
#   - a server started with --no-announce is not found, nor one listening on 127.0.0.1;
#   - a forger (10.77.0.4) that copies the server's name and code into its own
#     announcements is refused (no terminal to ask) with a warning naming both codes; 64 forged
#     entries from it do not hide the real server; an announcement sent to one host
#     directly (not to the group) is not listed;
#   - a server on a host where multicast is impossible (loopback only) warns once and
#     plays on.
# Needs root (ip netns), iproute2, tmux, and dist/ from scripts/package.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/netns-lib.sh
. "$root/scripts/netns-lib.sh"
needs_package lan-test

tag="rsb$$"
work="$(mktemp -d)"
server_pid=""
session="$tag-tty"
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -n "${evil_pid:-}" ] && kill "$evil_pid" 2>/dev/null || true
  for ns in srv p1 p2 evil lan solo; do ip netns del "$tag-$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "lan-test: $*" >&2; exit 1; }

# The package, unpacked; everything below runs it with this PATH (no Swift there).
tar -C "$work" -xzf "$archive"
pkg="$(echo "$work"/roshambo-*)"
clean_path=/usr/sbin:/usr/bin:/sbin:/bin
if env -i PATH="$clean_path" sh -c 'command -v swift' >/dev/null; then
  fail "swift is on $clean_path, so this would not show the binaries run without it"
fi
for binary in roshambo roshambo-server; do
  linked=$(ldd "$pkg/$binary")
  if echo "$linked" | grep -Ei 'libswift|libFoundation|libdispatch'; then
    fail "$binary links Swift libraries dynamically"
  fi
done
echo "lan-test: $(basename "$archive"): no Swift library linked, no swift on PATH"

make_lan "$tag" 10.77.0 srv p1 p2 evil
echo "lan-test: hosts 10.77.0.1 (server), 10.77.0.2 and 10.77.0.3 (players), 10.77.0.4 (a forger) are up"

# on HOST HOME COMMAND...: runs a packaged binary on a host, as a user whose home is HOME.
on() {
  local ns="$tag-$1" home="$work/home-$2"
  shift 2
  mkdir -p "$home"
  # exec: run in the background, the process (and its pid) is the program itself.
  exec ip netns exec "$ns" env -i PATH="$clean_path" HOME="$home" TERM=xterm-256color \
    sh -c 'cd "$HOME" && exec "$@"' sh "$@"
}

"$pkg/scripts/gen-certs.sh" --out "$work/certs" --host 10.77.0.1 >/dev/null
"$pkg/scripts/gen-certs.sh" --out "$work/other" >/dev/null   # no 10.77.0.1 in this one
fingerprint="$(openssl x509 -in "$work/certs/server.pem" -noout -fingerprint -sha256 | cut -d= -f2)"

start_server() {  # certificate directory, then extra flags
  local certs="$1"
  shift
  on srv server "$pkg/roshambo-server" --host 0.0.0.0 --port 7443 --name "LAN Test" \
    --cert "$certs/server.pem" --key "$certs/server-key.pem" --data-dir "$work/data" \
    --log-level error "$@" > "$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 300); do grep -q 'listening on' "$work/server.out" && break; sleep 0.1; done
  grep -q 'listening on' "$work/server.out" || { cat "$work/server.out"; fail "the server did not start"; }
  code="$(sed -n 's/^identity code: \([0-9-]*\).*/\1/p' "$work/server.out")"
}
stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

# Plays one match between two bots (HOST HOME ARGS... for each, separated by --).
match() {
  local room="$1" p1home="$2" p2home="$3"
  shift 3
  on p1 "$p1home" "$pkg/roshambo" bot --room "$room" --name p1 --strategy markov "$@" \
    > "$work/p1.out" 2>&1 &
  local p1=$!
  on p2 "$p2home" "$pkg/roshambo" bot --room "$room" --name p2 --strategy frequency "$@" \
    > "$work/p2.out" 2>&1 &
  local p2=$!
  local status=0
  wait "$p1" || status=1
  wait "$p2" || status=1
  for p in p1 p2; do echo "--- $p:"; cat "$work/$p.out"; done
  [ "$status" = 0 ] || fail "a player did not finish its match ($room)"
}

# Every host here plays with root's one key, so no match is rated: the leaderboard lists
# everyone who played (--leaderboard-opponents 0) for `who` to show it.
start_server "$work/certs" --leaderboard-opponents 0
echo "lan-test: the server prints identity code $code"
(on p1 one "$pkg/roshambo" servers --timeout 2) > "$work/servers.out" 2>&1 || { cat "$work/servers.out"; fail "roshambo servers found nothing"; }
echo "--- roshambo servers on 10.77.0.2:"; cat "$work/servers.out"
grep -q "^LAN Test  10.77.0.1:7443  0 waiting  code $code\$" "$work/servers.out" || fail "the server is not listed as announced"

echo "lan-test: --accept-new without --host is refused"
if (on p1 one "$pkg/roshambo" bot --accept-new --name p1) > "$work/blind.out" 2>&1; then
  status=0
else
  status=$?
fi
cat "$work/blind.out"
[ "$status" = 64 ] || fail "--accept-new without --host was not refused (exit $status, expected 64)"
grep -q -- "--accept-new needs --host" "$work/blind.out" || fail "the refusal does not say what to do"

echo "lan-test: two bots with --host and --accept-new"
match found one two --host 10.77.0.1 --accept-new
for home in one two; do
  grep -q "^10.77.0.1 7443 $fingerprint\$" "$work/home-$home/.config/roshambo/known_servers" \
    || fail "the server is not in $home's known_servers"
done
grep -q "trusting 10.77.0.1:7443 (code $code)" "$work/p1.out" || fail "p1 did not say it trusts the server"

echo "lan-test: again, remembered: no --host, no --accept-new, nothing asked"
match remembered one two
if grep -q "trusting" "$work/p1.out" "$work/p2.out"; then fail "a remembered server was trusted anew"; fi

echo "lan-test: the lobby from another host: who waits where, and the leaderboard"
on p1 one "$pkg/roshambo" bot --room party --name p1 > "$work/waiting.out" 2>&1 &
waiting=$!
seen=""
for _ in $(seq 50); do
  (on p2 two "$pkg/roshambo" who --name Looker) > "$work/who.out" 2>&1 || true
  if grep -q "^  p1 waiting in party$" "$work/who.out"; then seen=1; break; fi
  sleep 0.1
done
echo "--- roshambo who on 10.77.0.3:"; cat "$work/who.out"
[ -n "$seen" ] || fail "roshambo who does not show p1 waiting in party"
grep -q "^  Looker in the lobby$" "$work/who.out" || fail "roshambo who does not show its own follower"
grep -q "^  party: p1 waiting for an opponent" "$work/who.out" || fail "roshambo who does not list the room"
# Ranked ("  1. 1623  p1: …"), or new players apart ("   · 1720?  p1: …").
grep -Eq "^  ([12]\.| +·) [0-9]+\??  p[12]: [0-9]+ won, [0-9]+ lost$" "$work/who.out" \
  || fail "roshambo who shows no leaderboard (rating, name, won, lost)"
kill "$waiting"
wait "$waiting" 2>/dev/null || true
grep -q "stopped by a signal after 0 of 1 matches; left the room." "$work/waiting.out" \
  || { cat "$work/waiting.out"; fail "the waiting bot did not leave when stopped"; }

echo "lan-test: a challenge across hosts: p1 waits in the lobby, p2 challenges it by name"
on p1 one "$pkg/roshambo" bot --lobby --name p1 > "$work/p1.out" 2>&1 &
p1=$!
for _ in $(seq 50); do
  (on p2 two "$pkg/roshambo" who --name Looker) > "$work/who.out" 2>&1 || true
  grep -q "^  p1 in the lobby$" "$work/who.out" && break
  sleep 0.1
done
(on p2 two "$pkg/roshambo" bot --challenge p1 --name p2) > "$work/p2.out" 2>&1 \
  || { cat "$work/p2.out"; fail "p2's challenge to p1 was not played"; }
wait "$p1" || { cat "$work/p1.out"; fail "p1 did not play the challenge it accepted"; }
grep -q "^challenged p1: best of" "$work/p2.out" || fail "p2 did not say it challenged p1"
grep -q "^accepting p2's challenge" "$work/p1.out" || fail "p1 did not accept p2's challenge"
grep -q "^match 1: .* against p2$" "$work/p1.out" || fail "p1 did not play p2"

echo "lan-test: a fair match (commit-reveal) between the two hosts, every round verified"
match fair one two --fair
for p in p1 p2; do
  rounds=$(grep -c '^round ' "$work/$p.out")
  verified=$(grep -c '^round .*✓ verified$' "$work/$p.out")
  [ "$rounds" -gt 0 ] && [ "$rounds" = "$verified" ] || fail "$p verified $verified of $rounds rounds"
done

echo "lan-test: a person at a terminal is asked first"
mkdir -p "$work/home-tty"
tmux new-session -d -s "$session" -x 100 -y 30 \
  "ip netns exec $tag-p1 env -i PATH=$clean_path HOME=$work/home-tty TERM=xterm-256color $pkg/roshambo play --name Tess --room tty; echo EXIT=\$?; sleep 30"
asked=""
for _ in $(seq 100); do
  tmux capture-pane -p -t "$session" > "$work/prompt.txt"
  if grep -q "Trust this server from now on" "$work/prompt.txt"; then asked=1; break; fi
  sleep 0.1
done
[ -n "$asked" ] || { cat "$work/prompt.txt"; fail "the first-use question was not shown"; }
echo "--- what the person sees:"; grep -v '^$' "$work/prompt.txt"
grep -q "Its identity code is  $code" "$work/prompt.txt" || fail "the question does not show the code $code"
tmux send-keys -t "$session" y Enter
drawn=""
for _ in $(seq 100); do
  tmux capture-pane -p -t "$session" > "$work/screen.txt"
  if grep -q "Tess" "$work/screen.txt" && grep -q "tty" "$work/screen.txt"; then drawn=1; break; fi
  sleep 0.1
done
[ -n "$drawn" ] || { cat "$work/screen.txt"; fail "the game screen did not come after y"; }
echo "--- after y, the game's screen:"; grep -v '^ *$' "$work/screen.txt" | head -n 8
tmux send-keys -t "$session" q
grep -q "^10.77.0.1 7443 $fingerprint\$" "$work/home-tty/.config/roshambo/known_servers" || fail "y did not remember the server"
tmux kill-session -t "$session"

echo "lan-test: bots trusting the CA file and the pinned fingerprint"
# Fresh homes (nothing in known_servers), the same players: each brings the identity it
# played p1 and p2 under earlier (--identity), as a player copies it to another machine.
cp "$work/certs/ca.pem" "$work/ca.pem"
on p1 ca "$pkg/roshambo" bot --host 10.77.0.1 --ca "$work/ca.pem" --room lan --name p1 \
  --identity "$work/home-one/.config/roshambo/identity.pem" \
  --matches 2 > "$work/p1.out" 2>&1 &
p1=$!
on p2 pin "$pkg/roshambo" bot --host 10.77.0.1 --pin "$fingerprint" --room lan --name p2 \
  --identity "$work/home-two/.config/roshambo/identity.pem" \
  --matches 2 > "$work/p2.out" 2>&1 &
p2=$!
status=0
wait "$p1" || status=1
wait "$p2" || status=1
[ "$status" = 0 ] || { cat "$work/p1.out" "$work/p2.out"; fail "a --ca or --pin player did not finish"; }
old_code="$code"
stop_server

echo "lan-test: another certificate at the same address"
start_server "$work/other"
if (on p1 one "$pkg/roshambo" bot --host 10.77.0.1 --room changed --accept-new) > "$work/changed.out" 2>&1; then
  fail "a server with a changed certificate was accepted"
fi
echo "--- a known server with a new certificate:"; cat "$work/changed.out"
grep -q "HAS CHANGED" "$work/changed.out" || fail "expected the changed-identity warning"
grep -q "was $old_code and is now $code" "$work/changed.out" || fail "the warning does not name both codes"
grep -q "remove line 2 of $work/home-one/.config/roshambo/known_servers" "$work/changed.out" || fail "the warning does not name the line"
if (on p1 ca "$pkg/roshambo" bot --host 10.77.0.1 --ca "$work/other/ca.pem") > "$work/mismatch.out" 2>&1; then
  fail "a certificate without 10.77.0.1 was accepted"
fi
grep -q "name mismatch" "$work/mismatch.out" || { cat "$work/mismatch.out"; fail "expected a name mismatch"; }
stop_server

echo "lan-test: --no-announce"
start_server "$work/certs" --no-announce
if (on p1 one "$pkg/roshambo" servers --timeout 2) > "$work/quiet.out" 2>&1; then
  cat "$work/quiet.out"; fail "a server started with --no-announce was found"
fi
grep -q "no server announced itself" "$work/quiet.out" || { cat "$work/quiet.out"; fail "expected 'no server announced itself'"; }
stop_server

echo "lan-test: a server listening on 127.0.0.1 does not announce on the LAN"
start_server "$work/certs" --host 127.0.0.1 --log-level warning
grep -q "not announcing on the local network: the server listens only on 127.0.0.1" "$work/server.out" \
  || { cat "$work/server.out"; fail "expected the server to say it does not announce"; }
if (on p1 one "$pkg/roshambo" servers --timeout 2) > "$work/loopback.out" 2>&1; then
  cat "$work/loopback.out"; fail "a server listening on 127.0.0.1 was announced on the LAN"
fi
stop_server

echo "lan-test: the operations port bound to loopback answers on the server's host, not from another"
start_server "$work/certs" --no-announce --metrics-address 127.0.0.1:9464
(on srv server "$pkg/roshambo-server" status --metrics-address 127.0.0.1:9464) > "$work/status.out" 2>&1 \
  || { cat "$work/status.out"; fail "roshambo-server status on the server's host failed"; }
grep -q "^ready: taking players" "$work/status.out" || { cat "$work/status.out"; fail "status did not say ready"; }
status=0
(on p1 one "$pkg/roshambo-server" status --metrics-address 10.77.0.1:9464) > "$work/remote-status.out" 2>&1 || status=$?
[ "$status" = 69 ] || { cat "$work/remote-status.out"; fail "the loopback metrics port answered another host (exit $status)"; }
grep -q "nothing answers on 10.77.0.1:9464" "$work/remote-status.out" \
  || { cat "$work/remote-status.out"; fail "expected 'nothing answers' from another host"; }
stop_server

# forge COUNT [UNICAST_HOST]: for 4 s, the forger host announces COUNT servers named like
# the real one with the real code (ports 7443 on), and with UNICAST_HOST also sends one
# announcement ("Whisper") to that host directly instead of to the group.
forge() {
  ip netns exec "$tag-evil" /usr/bin/python3 - "$code" "$@" <<'PY' &
import json, socket, sys, time
code, count = sys.argv[1], int(sys.argv[2])
unicast = sys.argv[3] if len(sys.argv) > 3 else None
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("10.77.0.4"))
def announce(name, port, to):
    message = {"roshambo": "announce", "protocol": 1, "name": name, "port": port,
               "waiting": 0, "code": code}
    s.sendto(json.dumps(message).encode(), (to, 7444))
end = time.time() + 4
while time.time() < end:
    for i in range(count):
        announce("LAN Test", 7443 + i, "239.255.74.43")
    if unicast:
        announce("Whisper", 7443, unicast)
    time.sleep(0.1)
PY
  forger=$!
}

echo "lan-test: a forger announces the real server's name and code with its own certificate"
"$pkg/scripts/gen-certs.sh" --out "$work/evil" --host 10.77.0.4 >/dev/null
on evil evil "$pkg/roshambo-server" --host 0.0.0.0 --port 7443 --no-announce \
  --cert "$work/evil/server.pem" --key "$work/evil/server-key.pem" --data-dir "$work/evil-data" \
  --log-level error > "$work/evil.out" 2>&1 &
evil_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/evil.out" && break; sleep 0.1; done
start_server "$work/certs" --no-announce   # the real one is there, but silent
forge 1
if (on p1 spoofed "$pkg/roshambo" bot --name p1) > "$work/spoofed.out" 2>&1; then
  status=0
else
  status=$?
fi
wait "$forger" || true
echo "--- a bot offered the forger's announcement:"; cat "$work/spoofed.out"
[ "$status" = 77 ] || fail "a forged announcement was trusted (exit $status, expected 77)"
grep -q "announced the identity code $code, but its certificate's code is" "$work/spoofed.out" \
  || fail "the warning does not name the announced and the real code"
[ ! -e "$work/home-spoofed/.config/roshambo/known_servers" ] \
  || ! grep -q "^10.77.0.4" "$work/home-spoofed/.config/roshambo/known_servers" \
  || fail "the forger was remembered"
stop_server

echo "lan-test: 64 forged entries and a whispered one do not hide the real server"
start_server "$work/certs"
forge 64 10.77.0.2
(on p1 one "$pkg/roshambo" servers --timeout 2) > "$work/crowded.out" 2>&1 || true
wait "$forger" || true
echo "--- roshambo servers among forgeries:"; cat "$work/crowded.out"
grep -q "^LAN Test  10.77.0.1:7443  0 waiting  code $code\$" "$work/crowded.out" \
  || fail "the real server is not listed among the forgeries"
forged=$(grep -c "10.77.0.4:" "$work/crowded.out" || true)
[ "$forged" -le 4 ] || fail "$forged entries from one forger were listed (at most 4)"
if grep -q "Whisper" "$work/crowded.out"; then fail "an announcement not sent to the group was listed"; fi
stop_server
kill "$evil_pid" 2>/dev/null || true
wait "$evil_pid" 2>/dev/null || true
evil_pid=""

echo "lan-test: a host where multicast is impossible"
ip netns add "$tag-solo"
ip -n "$tag-solo" link set lo up
on solo solo "$pkg/roshambo-server" --host 127.0.0.1 --port 7443 --data-dir "$work/solo" \
  --log-level warning > "$work/solo.out" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/solo.out" && break; sleep 0.1; done
grep -q 'listening on' "$work/solo.out" || { cat "$work/solo.out"; fail "the server did not start without multicast"; }
on solo a "$pkg/roshambo" bot --host 127.0.0.1 --accept-new --room solo --name a > "$work/a.out" 2>&1 &
a=$!
on solo b "$pkg/roshambo" bot --host 127.0.0.1 --accept-new --room solo --name b > "$work/b.out" 2>&1 &
b=$!
status=0
wait "$a" || status=1
wait "$b" || status=1
[ "$status" = 0 ] || { cat "$work/a.out" "$work/b.out"; fail "no match without multicast"; }
echo "--- the server's warnings without multicast:"; grep -i 'announc' "$work/solo.out"
[ "$(grep -ci 'warning.*announc' "$work/solo.out")" = 1 ] || fail "expected exactly one warning about announcing"
stop_server
echo "lan-test: packaged binaries without Swift; found, trusted on first use, remembered, the lobby seen from another host, a challenge across hosts, changed identity refused, --no-announce and loopback unheard, forged announcements refused and capped, whispers ignored, no multicast warned once; --ca, --pin and the IP subjectAltName check: OK"
