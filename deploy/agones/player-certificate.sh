#!/usr/bin/env bash
# Makes what a player needs to ask the fleet's allocator for a server, and prints the
# command they run:
#   deploy/agones/player-certificate.sh NAME [OUT_DIR]
# - OUT_DIR/allocator-ca.pem: the allocator's CA (secret allocator-tls-ca), to check it;
# - OUT_DIR/NAME.pem, OUT_DIR/NAME-key.pem: a client certificate for NAME, signed by the
#   players' CA (made once in OUT_DIR/players-ca*.pem), which is allowlisted in the
#   allocator's secret allocator-client-ca.
# Needs kubectl pointed at the cluster (Agones installed with deploy/agones/helm-values.yaml)
# and openssl. Nothing here was run on a cluster on the machines this was written on.
set -euo pipefail

name=${1:?usage: player-certificate.sh NAME [OUT_DIR]}
out=${2:-players}
[[ $name =~ ^[A-Za-z0-9._-]{1,64}$ ]] || { echo "player-certificate: NAME must be 1 to 64 of A-Z a-z 0-9 . _ -" >&2; exit 64; }
mkdir -p "$out"
umask 077

kubectl get secret allocator-tls-ca -n agones-system -o jsonpath='{.data.tls-ca\.crt}' \
  | base64 -d > "$out/allocator-ca.pem"

if [[ ! -f $out/players-ca.pem ]]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$out/players-ca-key.pem"
  openssl req -x509 -new -key "$out/players-ca-key.pem" -days 730 -subj "/O=Roshambo/CN=Roshambo players" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/players-ca.pem"
  # Allowlist the players' CA: the allocator accepts certificates it signed.
  encoded=$(base64 -w 0 < "$out/players-ca.pem")
  kubectl patch secret allocator-client-ca -n agones-system --type merge \
    -p "{\"data\":{\"roshambo-players.crt\":\"$encoded\"}}"
fi

openssl ecparam -name prime256v1 -genkey -noout -out "$out/$name-key.pem"
openssl req -new -key "$out/$name-key.pem" -subj "/O=Roshambo/CN=$name" -out "$out/$name.csr"
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' \
  > "$out/client.ext"
openssl x509 -req -in "$out/$name.csr" -CA "$out/players-ca.pem" -CAkey "$out/players-ca-key.pem" \
  -CAcreateserial -days 365 -extfile "$out/client.ext" -out "$out/$name.pem"
rm -f "$out/$name.csr" "$out/client.ext"

address=$(kubectl get service agones-allocator -n agones-system \
  -o jsonpath='{.status.loadBalancer.ingress[0].ip}')
cat <<TEXT
Give $name these three files: $out/allocator-ca.pem, $out/$name.pem, $out/$name-key.pem
(keep $out/players-ca-key.pem to yourself). They play with:
  roshambo play --allocator https://${address:-ALLOCATOR_ADDRESS} --allocator-ca allocator-ca.pem \\
    --allocator-cert $name.pem --allocator-key $name-key.pem --pin FLEET_FINGERPRINT
where FLEET_FINGERPRINT is the fleet certificate's (the secret roshambo-tls):
  openssl x509 -in server.pem -noout -fingerprint -sha256
TEXT
