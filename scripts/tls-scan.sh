#!/usr/bin/env bash
# Scans a running Roshambo TLS server with sslyze against Mozilla's "intermediate"
# configuration and exits non-zero when it is not compliant.
#
#   scripts/tls-scan.sh HOST:PORT [--ca certs/ca.pem]   scan a server that is running
#   scripts/tls-scan.sh --self [--allow-tls12]           start our TLS server (from
#                                                        Benchmarks/) with fresh
#                                                        certificates and scan it
#
# sslyze comes from PyPI into .venv-sslyze/ (git-ignored), installed on first use.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-sslyze"
target=""
ca="$root/certs/ca.pem"
self=0
serve_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --self) self=1; shift ;;
    --allow-tls12) serve_flags+=(--allow-tls12); shift ;;
    --ca) [ $# -ge 2 ] || { echo "tls-scan: --ca needs a PEM file" >&2; exit 64; }
          ca="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tls-scan: unknown option $1 (see --help)" >&2; exit 64 ;;
    *) target="$1"; shift ;;
  esac
done
[ -n "$target" ] || [ "$self" = 1 ] || { echo "tls-scan: give HOST:PORT or --self (see --help)" >&2; exit 64; }

if [ ! -x "$venv/bin/sslyze" ]; then
  echo "tls-scan: installing sslyze into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q sslyze
fi

if [ "$self" = 1 ]; then
  work="$(mktemp -d)"
  "$root/scripts/gen-certs.sh" --out "$work" >/dev/null
  (cd "$root/Benchmarks" && swift build -c release --product tls-bench >/dev/null)
  mkfifo "$work/stdin"
  "$root/Benchmarks/.build/release/tls-bench" serve --tls "$work/server.pem" "$work/server-key.pem" \
    "${serve_flags[@]+"${serve_flags[@]}"}" \
    < "$work/stdin" > "$work/out" &
  server=$!
  exec 3> "$work/stdin"   # the server runs until this is closed
  trap 'exec 3>&-; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
  until grep -q '^PORT ' "$work/out"; do
    kill -0 "$server" 2>/dev/null || { echo "tls-scan: the server did not start" >&2; exit 1; }
    sleep 0.1
  done
  target="127.0.0.1:$(awk '/^PORT /{print $2}' "$work/out")"
  ca="$work/ca.pem"
fi

[ -r "$ca" ] || { echo "tls-scan: cannot read the CA file $ca (use --ca)" >&2; exit 66; }
echo "tls-scan: scanning $target (trusting $ca)"
"$venv/bin/sslyze" --mozilla_config=intermediate --certinfo_ca_file "$ca" "$target"
