#!/usr/bin/env bash
# Makes the game's private CA and a server certificate signed by it, EC P-256, in certs/
# (or --out DIR). The server certificate names localhost, 127.0.0.1, ::1, this machine's
# host name and LAN addresses, and every --host given. Keys are written mode 0600.
#
#   scripts/gen-certs.sh [--host NAME_OR_IP ...] [--out DIR] [--days N] [--client NAME]
#
# --client NAME also issues a client certificate (NAME.pem, NAME-key.pem) for mutual TLS.
# The server makes the same files itself on first start when certs/ has none.
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-64}"
}

out="$(cd "$(dirname "$0")/.." && pwd)/certs"
days=365
hosts=()
clients=()
while [ $# -gt 0 ]; do
  case "$1" in
    --host) [ $# -ge 2 ] || { echo "gen-certs: --host needs a name or IP address" >&2; exit 64; }
            hosts+=("$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || { echo "gen-certs: --out needs a directory" >&2; exit 64; }
           out="$2"; shift 2 ;;
    --days) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "gen-certs: --days needs a number of days" >&2; exit 64; }
            days="$2"; shift 2 ;;
    --client) [ $# -ge 2 ] || { echo "gen-certs: --client needs a name" >&2; exit 64; }
              clients+=("$2"); shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "gen-certs: unknown option $1 (see --help)" >&2; exit 64 ;;
  esac
done

command -v openssl >/dev/null || { echo "gen-certs: openssl not found; install it: apt-get install openssl" >&2; exit 69; }
mkdir -p "$out"
umask 077

is_ip() { [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || "$1" == *:* ]]; }

names=(localhost 127.0.0.1 ::1)
hostname_now="$(hostname 2>/dev/null || true)"
[ -n "$hostname_now" ] && names+=("$hostname_now")
if command -v ip >/dev/null; then
  while read -r addr; do names+=("$addr"); done < <(
    ip -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1)
elif command -v hostname >/dev/null; then
  for addr in $(hostname -I 2>/dev/null || true); do names+=("$addr"); done
fi
names+=("${hosts[@]+"${hosts[@]}"}")

san=""
declare -A seen=()
for name in "${names[@]}"; do
  key="${name,,}"
  [ -n "${seen[$key]:-}" ] && continue
  seen[$key]=1
  if is_ip "$name"; then san+="IP:$name,"; else san+="DNS:$name,"; fi
done
san="${san%,}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ca-key.pem"
openssl req -x509 -new -key "$tmp/ca-key.pem" -sha256 -days $((days * 2)) \
  -subj "/O=Roshambo/CN=Roshambo game CA (${hostname_now:-unknown})" \
  -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" \
  -out "$tmp/ca.pem"

openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/server-key.pem"
openssl req -new -key "$tmp/server-key.pem" -subj "/O=Roshambo/CN=${hostname_now:-roshambo-server}" \
  -out "$tmp/server.csr"
cat > "$tmp/server.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$san
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca-key.pem" \
  -CAcreateserial -days "$days" -sha256 -extfile "$tmp/server.ext" -out "$tmp/leaf.pem" 2>/dev/null
cat "$tmp/leaf.pem" "$tmp/ca.pem" > "$tmp/server.pem"

for client in "${clients[@]+"${clients[@]}"}"; do
  openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/$client-key.pem"
  openssl req -new -key "$tmp/$client-key.pem" -subj "/O=Roshambo/CN=$client" -out "$tmp/$client.csr"
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' \
    > "$tmp/client.ext"
  openssl x509 -req -in "$tmp/$client.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca-key.pem" \
    -CAcreateserial -days "$days" -sha256 -extfile "$tmp/client.ext" -out "$tmp/$client-leaf.pem" 2>/dev/null
  cat "$tmp/$client-leaf.pem" "$tmp/ca.pem" > "$tmp/$client.pem"
  install -m 600 "$tmp/$client-key.pem" "$out/$client-key.pem"
  install -m 644 "$tmp/$client.pem" "$out/$client.pem"
done

install -m 600 "$tmp/ca-key.pem" "$out/ca-key.pem"
install -m 644 "$tmp/ca.pem" "$out/ca.pem"
install -m 600 "$tmp/server-key.pem" "$out/server-key.pem"
install -m 644 "$tmp/server.pem" "$out/server.pem"

fingerprint="$(openssl x509 -in "$out/server.pem" -noout -fingerprint -sha256 | cut -d= -f2)"
echo "gen-certs: wrote $out/{ca.pem,ca-key.pem,server.pem,server-key.pem}"
echo "gen-certs: server certificate names: ${san//,/ }"
echo "gen-certs: server SHA-256 fingerprint: $fingerprint"
echo "gen-certs: players copy $out/ca.pem (or pin the fingerprint above)."
