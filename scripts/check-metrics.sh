#!/usr/bin/env bash
# The operations endpoint read by a real Prometheus parser: starts roshambo-server with
# --metrics-address on loopback, lets two bots play one match, scrapes /metrics and parses
# it with prometheus_client (PyPI, installed into .venv-ops/, git-ignored, on first use),
# checking the counters of that match; then /livez, /readyz, and that the port is not on
# the game's address. Run by .ci/run after `swift build`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/debug"
venv="$root/.venv-ops"
[ -x "$bin/roshambo-server" ] || { echo "check-metrics: run swift build first" >&2; exit 66; }
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import prometheus_client" 2>/dev/null; then
  echo "check-metrics: installing prometheus_client into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q prometheus_client
fi

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
"$bin/roshambo-server" --host 127.0.0.1 --port 0 --data-dir data --no-announce \
  --log-level error --best-of 1 --metrics-address 127.0.0.1:0 > server.out 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q 'operations on' server.out && break; sleep 0.1; done
port="$(grep -o 'listening on 127.0.0.1:[0-9]*' server.out | cut -d: -f2)"
ops="$(grep -o 'operations on http://127.0.0.1:[0-9]*' server.out | cut -d: -f3)"
[ -n "$port" ] && [ -n "$ops" ] || { echo "check-metrics: the server did not start:"; cat server.out; exit 1; }

for who in Ann Bob; do
  "$bin/roshambo" bot --host 127.0.0.1 --port "$port" --ca certs/ca.pem --room den \
    --matches 1 --name "$who" > "$who.out" 2>&1 &
done
wait %2 %3 || { echo "check-metrics: the bots did not finish"; cat Ann.out Bob.out; exit 1; }

"$venv/bin/python" - "$ops" <<'PY'
import sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families
port = sys.argv[1]
def get(path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
status, text = get("/metrics")
assert status == 200, status
families = {f.name: f for f in text_string_to_metric_families(text)}
def value(family, suffix="", **labels):
    for s in families[family].samples:
        if s.name == family + suffix and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise KeyError((family, labels))
checks = {
    "matches finished (not forfeit, not fair)":
        value("roshambo_matches_finished", "_total", forfeit="false", fair="false") == 1,
    "connections accepted": value("roshambo_connections_accepted", "_total") == 2,
    "rounds resolved at least 1": value("roshambo_rounds_resolved", "_total") >= 1,
    "commit histogram filled": value("roshambo_journal_commit_seconds", "_count") >= 1,
    "stall profile: sends timed": value("roshambo_hub_step_seconds", "_count", step="send") >= 1,
    "stall profile: sealed to sent": value("roshambo_commit_to_send_seconds", "_count") >= 1,
    "stall profile: loop lag present": "roshambo_loop_lag_seconds" in families,
    "build info": families["roshambo_build_info"].samples[0].labels["protocol"] == "1",
    "every family typed": all(f.type in ("counter", "gauge", "histogram") for f in families.values()),
}
failed = [name for name, ok in checks.items() if not ok]
assert not failed, f"failed: {failed}"
assert get("/livez") == (200, "ok\n"), get("/livez")
assert get("/readyz") == (200, "ready\n"), get("/readyz")
assert get("/nothing")[0] == 404
print(f"check-metrics: {len(families)} metric families parsed by prometheus_client; "
      f"{len(checks)} checks hold; /livez and /readyz answer")
PY
