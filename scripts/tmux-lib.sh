# Shared by scripts/tmux-play.sh and scripts/tmux-party.sh (sourced, not run): checks that
# the binaries and tmux are there, starts a quiet roshambo-server on 127.0.0.1 in a
# temporary folder, and gives expect_screen, refuse_screen and press over tmux. Set
# `name` (for messages) before sourcing; pass the server's extra flags to start_server.
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${ROSHAMBO_BIN:-$root/.build/debug}"  # ROSHAMBO_BIN: other binaries (a release build)
[ -x "$bin/roshambo" ] && [ -x "$bin/roshambo-server" ] || { echo "$name: run swift build first" >&2; exit 66; }
command -v tmux >/dev/null || { echo "$name: tmux is not installed (apt-get install tmux)" >&2; exit 69; }

work="$(mktemp -d)"
sock="roshambo-$name-$$"
server_pid=""
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

start_server() {  # extra flags
  "$bin/roshambo-server" --host 127.0.0.1 --port 0 --data-dir data --log-level error \
    --no-announce "$@" > server.out 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do grep -q 'listening on' server.out && break; sleep 0.1; done
  port="$(grep -o 'listening on 127.0.0.1:[0-9]*' server.out | cut -d: -f2)"
  [ -n "$port" ] || { echo "$name: the server did not start:"; cat server.out; exit 1; }
}

# Waits (up to 10 s) until the player's screen shows the text.
expect_screen() {  # player text
  for _ in $(seq 100); do
    if tmux -L "$sock" capture-pane -p -t "$1" | grep -qF -- "$2"; then return 0; fi
    sleep 0.1
  done
  echo "$name: $1's screen never showed: $2"; echo "--- $1's screen:"
  tmux -L "$sock" capture-pane -p -t "$1"
  exit 1
}

# The screen must not show the text (checked once, after something else was awaited).
refuse_screen() {  # player text
  if tmux -L "$sock" capture-pane -p -t "$1" | grep -qF -- "$2"; then
    echo "$name: $1's screen shows what it must not: $2"; echo "--- $1's screen:"
    tmux -L "$sock" capture-pane -p -t "$1"
    exit 1
  fi
}

press() { tmux -L "$sock" send-keys -t "$1" "$2"; }
