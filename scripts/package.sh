#!/usr/bin/env bash
# Builds release binaries that run where Swift is not installed and packs them:
#
#   scripts/package.sh            writes dist/roshambo-VERSION-linux-ARCH.tar.gz
#
# The Swift runtime and Foundation are linked in (--static-swift-stdlib), so the
# binaries need only libc (with libstdc++ and libgcc_s, on every glibc distribution),
# OpenSSL 3 (libssl3) and SQLite 3 (libsqlite3-0); the script
# checks that with ldd and fails if a Swift library is still linked dynamically. The
# archive holds roshambo, roshambo-server, README.txt and scripts/gen-certs.sh. Builds in
# .build-package (about 4 minutes on 2 cores the first time).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

version=$(sed -n 's/.*static let number = "\(.*\)"/\1/p' Sources/RoshamboProtocol/RoshamboVersion.swift)
[ -n "$version" ] || { echo "package: cannot read the version from RoshamboVersion.swift" >&2; exit 65; }
arch=$(uname -m)
name="roshambo-$version-linux-$arch"
scratch="$root/.build-package"

echo "package: building $name (release, Swift runtime linked statically)"
for product in roshambo roshambo-server; do
  # pipefail: the pipeline fails when the build does (the filter never fails it).
  if ! swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product "$product" \
    2>&1 | { grep -Ev '^\[[0-9]+/[0-9]+\]|^(Fetch|Comput|Creat|Working copy)|use of .mktemp. is dangerous' || true; }; then
    echo "package: $product did not build" >&2
    exit 1
  fi
done
bin="$scratch/release"

# Only libc, OpenSSL and (the server) SQLite (and the loader, libm, libstdc++'s runtime)
# may remain.
for product in roshambo roshambo-server; do
  linked=$(ldd "$bin/$product")
  swift_libs=$(echo "$linked" | grep -Ei 'libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation|libicu' || true)
  if [ -n "$swift_libs" ]; then
    echo "package: $product still links Swift libraries dynamically:" >&2
    echo "$swift_libs" >&2
    exit 1
  fi
  case "$linked" in
    *libssl.so.3*) ;;
    *) echo "package: $product does not link OpenSSL 3:" >&2; echo "$linked" >&2; exit 1 ;;
  esac
done
# The player's program links no database and no second TLS library: --vs-bot runs the
# server's core, which keeps nothing, inside it (the journal and the shared history are
# roshambo-server's alone).
if ldd "$bin/roshambo" | grep -q libsqlite3; then
  echo "package: roshambo links SQLite; only roshambo-server may" >&2
  exit 1
fi
if nm "$bin/roshambo" 2>/dev/null | grep -qE 'GRDB|PostgresNIO|CCryptoBoringSSL'; then
  echo "package: roshambo contains the journal, PostgreSQL or BoringSSL; only roshambo-server may" >&2
  exit 1
fi
# Nor the operations endpoint: the server's core counts through swift-metrics' API alone,
# and Prometheus' backend is RoshamboOperations', which only roshambo-server links.
if nm "$bin/roshambo" 2>/dev/null | grep -qE 'Prometheus|RoshamboOperations'; then
  echo "package: roshambo contains Prometheus or the operations endpoint; only roshambo-server may" >&2
  exit 1
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/scripts"
install -m 0755 "$bin/roshambo" "$bin/roshambo-server" "$stage/$name/"
strip "$stage/$name/roshambo" "$stage/$name/roshambo-server" 2>/dev/null || true
install -m 0755 scripts/gen-certs.sh "$stage/$name/scripts/"
cat >"$stage/$name/README.txt" <<TEXT
Roshambo $version: rock-paper-scissors over TLS, for two players on a LAN or bots.

These binaries need only libc (with libstdc++), OpenSSL 3 and SQLite 3 (Debian and
Ubuntu: apt install libssl3 libsqlite3-0; both are usually there already). No Swift
toolchain is needed.

Host a game (one machine):
  ./roshambo-server
It makes a certificate in certs/ on first start, prints its identity code, and
announces itself on the local network (--no-announce turns that off; --name names it).

Play (every other machine, this folder copied there):
  ./roshambo play --name Alice
finds the server on the LAN. The first time, it shows the server's identity code: if it
is the code the server printed, answer y, and the server is remembered in
~/.config/roshambo/known_servers. A server whose certificate changes later is refused.
  ./roshambo servers                      lists the servers on the LAN
  ./roshambo play --host 192.168.1.20     names one when multicast does not pass
  ./roshambo bot --host 192.168.1.20 --accept-new --matches 3
                                          plays without a screen (scripts, tests)
  ./roshambo play --vs-bot                plays a bot on this machine at once

scripts/gen-certs.sh --host NAME_OR_IP makes a new certificate (for example to add an
address). Every command has --help.
TEXT
mkdir -p dist
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
echo "package: dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1))"
