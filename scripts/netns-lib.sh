# Hosts on one LAN for the tests of the packaged binaries, sourced by lan-test.sh and
# party-evening.sh (root, iproute2) after they set `root` (the repository).
#
# needs_package NAME: the newest package in dist/ as $archive, with ip and tmux on PATH;
# otherwise says what is missing (as NAME) and exits (66: no package, 69: no tool).
needs_package() {
  local name="$1"
  archive="$(ls -t "$root"/dist/roshambo-*-linux-"$(uname -m)".tar.gz 2>/dev/null | head -n 1 || true)"
  [ -n "$archive" ] || { echo "$name: no package in dist/; run scripts/package.sh first" >&2; exit 66; }
  command -v ip >/dev/null || { echo "$name: ip (iproute2) is not installed" >&2; exit 69; }
  command -v tmux >/dev/null || { echo "$name: tmux is not installed" >&2; exit 69; }
}

# make_lan TAG SUBNET NAME...: a bridge in the namespace TAG-lan (multicast passes, as on
# a home LAN), and for each NAME a host, the namespace TAG-NAME, wired to it by a veth
# (TAGNAMEa in the host, TAGNAMEb on the bridge) with the address SUBNET.1, SUBNET.2, …
# in the order given. A link goes down with: ip -n TAG-NAME link set TAGNAMEa down.
make_lan() {
  local tag="$1" subnet="$2"
  shift 2
  ip netns add "$tag-lan"
  ip -n "$tag-lan" link add br0 type bridge mcast_snooping 0
  ip -n "$tag-lan" link set br0 up
  local address=1 name ns
  for name in "$@"; do
    ns="$tag-$name"
    ip netns add "$ns"
    ip link add "$tag${name}a" type veth peer name "$tag${name}b"
    ip link set "$tag${name}a" netns "$ns"
    ip link set "$tag${name}b" netns "$tag-lan"
    ip -n "$tag-lan" link set "$tag${name}b" master br0 up
    ip -n "$ns" addr add "$subnet.$address/24" dev "$tag${name}a"
    ip -n "$ns" link set "$tag${name}a" up
    ip -n "$ns" link set lo up
    address=$((address + 1))
  done
}
