#!/usr/bin/env bash
# Two machines' worth of LAN on one: network namespaces joined by veth to a bridge
# (a server host 10.77.0.1 and two player hosts 10.77.0.2 and .3, addresses that exist
# only inside these namespaces). Issues a certificate for the server's address, runs
# roshambo-server on the server host and a bot on each player host (one trusting the
# CA file, one pinning the fingerprint), and checks the match finishes. Then checks the
# IP subjectAltName path the other way: a certificate without 10.77.0.1 is refused with
# "name mismatch". Needs root (ip netns), iproute2, and `swift build` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/debug"
[ -x "$bin/roshambo" ] && [ -x "$bin/roshambo-server" ] || { echo "lan-test: run swift build first" >&2; exit 66; }
command -v ip >/dev/null || { echo "lan-test: ip (iproute2) is not installed" >&2; exit 69; }

tag="rsb$$"
lan="$tag-lan"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  for ns in srv p1 p2 lan; do ip netns del "$tag-$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$lan"
ip -n "$lan" link add br0 type bridge
ip -n "$lan" link set br0 up
host=1
for name in srv p1 p2; do
  ns="$tag-$name"
  ip netns add "$ns"
  ip link add "$tag$name-a" type veth peer name "$tag$name-b"
  ip link set "$tag$name-a" netns "$ns"
  ip link set "$tag$name-b" netns "$lan"
  ip -n "$lan" link set "$tag$name-b" master br0 up
  ip -n "$ns" addr add "10.77.0.$host/24" dev "$tag$name-a"
  ip -n "$ns" link set "$tag$name-a" up
  ip -n "$ns" link set lo up
  host=$((host + 1))
done
echo "lan-test: hosts 10.77.0.1 (server), 10.77.0.2 and 10.77.0.3 (players) are up"

"$root/scripts/gen-certs.sh" --out "$work/certs" --host 10.77.0.1 >/dev/null
"$root/scripts/gen-certs.sh" --out "$work/other" >/dev/null   # no 10.77.0.1 in this one
fingerprint="$(openssl x509 -in "$work/certs/server.pem" -noout -fingerprint -sha256 | cut -d= -f2)"

start_server() {  # certificate directory
  ip netns exec "$tag-srv" "$bin/roshambo-server" --host 0.0.0.0 --port 7443 \
    --cert "$1/server.pem" --key "$1/server-key.pem" --data-dir "$work/data" --log-level error \
    > "$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$work/server.out" && return 0; sleep 0.1; done
  echo "lan-test: the server did not start:"; cat "$work/server.out"; exit 1
}

start_server "$work/certs"
ip netns exec "$tag-p1" "$bin/roshambo" bot --host 10.77.0.1 --ca "$work/certs/ca.pem" \
  --room lan --name p1 --strategy markov --matches 2 > "$work/p1.out" 2>&1 &
p1=$!
ip netns exec "$tag-p2" "$bin/roshambo" bot --host 10.77.0.1 --pin "$fingerprint" \
  --room lan --name p2 --strategy frequency --matches 2 > "$work/p2.out" 2>&1 &
p2=$!
status=0
wait "$p1" || status=1
wait "$p2" || status=1
for p in p1 p2; do echo "--- $p (10.77.0.$([ $p = p1 ] && echo 2 || echo 3)):"; cat "$work/$p.out"; done
[ "$status" = 0 ] || { echo "lan-test: a player did not finish its matches"; exit 1; }
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# The IP subjectAltName check, the other way round.
start_server "$work/other"
if ip netns exec "$tag-p1" "$bin/roshambo" bot --host 10.77.0.1 --ca "$work/other/ca.pem" \
  > "$work/mismatch.out" 2>&1; then
  echo "lan-test: a certificate without 10.77.0.1 was accepted"; exit 1
fi
grep -q "name mismatch" "$work/mismatch.out" || { echo "lan-test: expected a name mismatch:"; cat "$work/mismatch.out"; exit 1; }
echo "--- with a certificate that does not list 10.77.0.1:"; cat "$work/mismatch.out"
echo "lan-test: a match across three hosts, and the IP subjectAltName check: OK"
