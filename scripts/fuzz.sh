#!/usr/bin/env bash
# Fuzzing with libFuzzer and AddressSanitizer: one target per input surface (Fuzz/).
#
#   scripts/fuzz.sh TARGET [SECONDS]      fuzz one target (default 60 s)
#   scripts/fuzz.sh all [SECONDS]         every target in turn, SECONDS each
#   scripts/fuzz.sh reproduce TARGET FILE run one saved input (a crash) and show what broke
#   scripts/fuzz.sh seeds                 rewrite Fuzz/Corpus from the code and docs/PROTOCOL.md
#   scripts/fuzz.sh supported             exit 0 when this toolchain can build the targets
#
# Targets: server-frames, client-frames, tls-server, tls-client, journal, announcement,
# record.
# Each run grows its corpus in Fuzz/.work/TARGET/corpus (seeded from Fuzz/Corpus/TARGET,
# which it never changes) and saves crashes in Fuzz/.work/TARGET/crashes; reproduce one
# with `scripts/fuzz.sh reproduce TARGET Fuzz/.work/TARGET/crashes/crash-…`, then add a
# regression test for it to the normal suite. The last line of each run is a summary:
# executions, corpus size, coverage (libFuzzer's cov:), crashes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fuzz="$root/Fuzz"
targets=(server-frames client-frames tls-server tls-client journal announcement record client-identity)
# The fuzz build has a folder of its own: a plain `swift build` in Fuzz/ (other flags, no
# coverage) must never leave objects the instrumented build then links.
scratch="$fuzz/.build-fuzz"

die() {
  echo "fuzz.sh: $*" >&2
  exit 64
}

# libFuzzer without its main(): each target calls LLVMFuzzerRunDriver from Swift.
runtime() {
  local swift_bin
  swift_bin=$(dirname "$(readlink -f "$(command -v swiftc)")")
  ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a \
    2>/dev/null | head -n 1
}

build() {
  local library
  library=$(runtime)
  [ -n "$library" ] || die "this toolchain has no libFuzzer runtime (libclang_rt.fuzzer_no_main)"
  mkdir -p "$fuzz/.work"
  # SwiftPM keeps a path dependency's old file list in its build plan: when files were
  # added or moved in the product since the last build, forget the plan (not the
  # compiled modules) before building.
  local sources
  sources=$(cd "$root" && find Sources Fuzz/Sources -name '*.swift' | sort | cksum)
  if [ "$sources" != "$(cat "$fuzz/.work/sources.cksum" 2>/dev/null)" ]; then
    rm -f "$scratch/release.yaml" "$scratch/build.db"
  fi
  echo "$sources" >"$fuzz/.work/sources.cksum"
  local status=0
  compile() {
    (cd "$fuzz" && swift build -c release --scratch-path "$scratch" \
      -Xswiftc -sanitize=address \
      -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
      -Xlinker "$library" -Xlinker -lstdc++ "$@") >"$fuzz/.work/build.log" 2>&1
  }
  compile "$@" || status=$?
  if [ "$status" -ne 0 ] && grep -q 'because of missing inputs' "$fuzz/.work/build.log"; then
    # SwiftPM keeps the old list of a path dependency's files after files move in the
    # product; forget the build plan (not the compiled modules) and build again.
    rm -f "$scratch/release.yaml" "$scratch/build.db"
    status=0
    compile "$@" || status=$?
  fi
  grep -Ev '^\[[0-9]+/[0-9]+\]|__asan_extra_spill_area' "$fuzz/.work/build.log" || true
  [ "$status" -eq 0 ] || die "the fuzz targets did not build (exit $status; see above)"
}

binary() { echo "$scratch/release/fuzz-$1"; }

valid() {
  local target
  for target in "${targets[@]}"; do [ "$target" = "$1" ] && return 0; done
  die "no target '$1'; the targets are: ${targets[*]} (or all)"
}

# Options every run shares: the Swift runtime's own backtracer stays out of libFuzzer's
# way, and leaks are not judged per input (the Swift runtime caches metadata for good).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1

run() {
  local target=$1 seconds=$2 work="$fuzz/.work/$1" log
  mkdir -p "$work/corpus" "$work/crashes"
  log="$work/last-run.log"
  local status=0
  "$(binary "$target")" "$work/corpus" "$fuzz/Corpus/$target" \
    -dict="$fuzz/roshambo.dict" -max_total_time="$seconds" -max_len=20000 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" >"$log" 2>&1 || status=$?
  local runs cov corpus crashes
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || echo 0)
  corpus=$(find "$work/corpus" -type f | wc -l)
  crashes=$(find "$work/crashes" -type f | wc -l)
  echo "fuzz $target: ${runs:-0} executions in ${seconds} s, corpus $corpus, cov ${cov:-0}, crashes saved $crashes"
  if [ "$status" -ne 0 ]; then
    grep -E 'invariant broken|ERROR: AddressSanitizer|SUMMARY|Test unit written' "$log" | head -n 8 >&2
    echo "fuzz $target: FAILED (exit $status); log in $log" >&2
    return 1
  fi
}

case "${1:-}" in
  supported)
    [ -n "$(runtime)" ]
    ;;
  seeds)
    (cd "$fuzz" && swift run make-seeds)
    python3 - "$root" <<'EOF'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
text = (root / "docs/PROTOCOL.md").read_text()
lines = re.findall(r"^(\w+)\s+(→|←)\s+(\{.*\})$", text, re.M)
def frame(payload):
    data = payload.encode()
    return len(data).to_bytes(4, "big") + data
for index, (_, arrow, payload) in enumerate(lines):
    target = "server-frames" if arrow == "→" else "client-frames"
    (root / "Fuzz/Corpus" / target / f"protocol-md-{index}").write_bytes(frame(payload))
print(f"added {len(lines)} examples from docs/PROTOCOL.md")
EOF
    ;;
  reproduce)
    [ $# -eq 3 ] || die "usage: scripts/fuzz.sh reproduce TARGET FILE"
    valid "$2"
    [ -f "$3" ] || die "no such file: $3"
    build
    "$(binary "$2")" "$3"
    ;;
  all)
    build
    failed=0
    for target in "${targets[@]}"; do run "$target" "${2:-60}" || failed=1; done
    exit $failed
    ;;
  "" | -h | --help)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    valid "$1"
    build
    run "$1" "${2:-60}"
    ;;
esac
