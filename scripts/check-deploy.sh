#!/usr/bin/env bash
# The deployment files checked without a cluster (none runs on these machines):
#   - the Kubernetes objects (deploy/postgres, and the Pod template inside the Fleet) with
#     kubernetes-validate from PyPI, strict (an unknown field fails);
#   - the Agones objects (Fleet, FleetAutoscaler) against the fields of Agones' published
#     CRDs (fleets.agones.dev, fleetautoscalers.autoscaling.agones.dev), transcribed into
#     scripts/check_deploy.py, unknown fields refused;
#   - the Dockerfile's stages and that it builds with scripts/package.sh.
# Python packages go into .venv-ops/ (git-ignored) on first use. Run by .ci/run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-ops"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import kubernetes_validate, yaml, jsonschema" 2>/dev/null; then
  echo "check-deploy: installing kubernetes-validate and PyYAML into $venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q kubernetes-validate pyyaml
fi
cd "$root"
"$venv/bin/python" scripts/check_deploy.py
