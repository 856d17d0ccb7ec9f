"""Checks deploy/ without a cluster (see scripts/check-deploy.sh)."""
import copy
import subprocess
import sys
import tempfile

import jsonschema
import yaml

INT_OR_STRING = {"anyOf": [{"type": "integer"}, {"type": "string"}]}


def strict(properties, required=()):
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


# Agones' published CRDs (install/helm/agones/templates/crds): the GameServer spec inside
# a Fleet, the Fleet's spec, and the FleetAutoscaler's policy and sync. The Pod template is
# left to kubernetes-validate.
GAMESERVER_SPEC = strict({
    "container": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
    "ports": {"type": "array", "minItems": 1, "items": strict({
        "name": {"type": "string"},
        "portPolicy": {"enum": ["Dynamic", "Static", "Passthrough", "None"]},
        "protocol": {"enum": ["UDP", "TCP", "TCPUDP"]},
        "container": {"type": "string"},
        "containerPort": {"type": "integer", "minimum": 1, "maximum": 65535},
        "hostPort": {"type": "integer", "minimum": 1, "maximum": 65535},
    })},
    "health": strict({
        "disabled": {"type": "boolean"},
        "initialDelaySeconds": {"type": "integer", "minimum": 0},
        "periodSeconds": {"type": "integer", "minimum": 0},
        "failureThreshold": {"type": "integer", "minimum": 1},
    }),
    "sdkServer": strict({
        "logLevel": {"enum": ["Error", "Info", "Debug", "Trace"]},
        "grpcPort": {"type": "integer", "minimum": 1, "maximum": 65535},
        "httpPort": {"type": "integer", "minimum": 1, "maximum": 65535},
    }),
    "scheduling": {"enum": ["Packed", "Distributed"]},
    "players": strict({"initialCapacity": {"type": "integer", "minimum": 0}}),
    "counters": {"type": "object", "additionalProperties": strict({
        "count": {"type": "integer", "minimum": 0},
        "capacity": {"type": "integer", "minimum": 0},
    })},
    "lists": {"type": "object", "additionalProperties": strict({
        "capacity": {"type": "integer", "minimum": 0, "maximum": 1000},
        "values": {"type": "array", "items": {"type": "string"}},
    })},
    "template": {"type": "object", "required": ["spec"]},
}, required=["template"])

FLEET = strict({
    "apiVersion": {"const": "agones.dev/v1"},
    "kind": {"const": "Fleet"},
    "metadata": {"type": "object", "required": ["name"]},
    "spec": strict({
        "replicas": {"type": "integer", "minimum": 0},
        "scheduling": {"enum": ["Packed", "Distributed"]},
        "strategy": strict({
            "type": {"enum": ["Recreate", "RollingUpdate"]},
            "rollingUpdate": strict({"maxSurge": INT_OR_STRING, "maxUnavailable": INT_OR_STRING}),
        }),
        "allocationOverflow": {"type": "object"},
        "priorities": {"type": "array", "items": strict({
            "type": {"enum": ["Counter", "List"]},
            "key": {"type": "string"},
            "order": {"enum": ["Ascending", "Descending"]},
        })},
        "template": strict({
            "metadata": strict({
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            }),
            "spec": GAMESERVER_SPEC,
        }, required=["spec"]),
    }, required=["template"]),
}, required=["apiVersion", "kind", "metadata", "spec"])

CAPACITY_POLICY = strict({
    "key": {"type": "string"},
    "minCapacity": {"type": "integer", "minimum": 0},
    "maxCapacity": {"type": "integer", "minimum": 1},
    "bufferSize": INT_OR_STRING,
}, required=["key", "bufferSize", "maxCapacity"])

FLEET_AUTOSCALER = strict({
    "apiVersion": {"const": "autoscaling.agones.dev/v1"},
    "kind": {"const": "FleetAutoscaler"},
    "metadata": {"type": "object", "required": ["name"]},
    "spec": strict({
        "fleetName": {"type": "string"},
        "policy": strict({
            "type": {"enum": ["Buffer", "Webhook", "Counter", "List", "Chain"]},
            "buffer": strict({
                "minReplicas": {"type": "integer", "minimum": 0},
                "maxReplicas": {"type": "integer", "minimum": 1},
                "bufferSize": INT_OR_STRING,
            }, required=["maxReplicas"]),
            "counter": CAPACITY_POLICY,
            "list": CAPACITY_POLICY,
        }, required=["type"]),
        "sync": strict({
            "type": {"enum": ["FixedInterval"]},
            "fixedInterval": strict({"seconds": {"type": "integer", "minimum": 1}},
                                    required=["seconds"]),
        }),
    }, required=["fleetName", "policy"]),
}, required=["apiVersion", "kind", "metadata", "spec"])


def validate_kubernetes(objects, where):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
        yaml.safe_dump_all(objects, file)
        file.flush()
        result = subprocess.run(
            [sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", file.name],
            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"check-deploy: {where} is not valid Kubernetes:\n{result.stdout}{result.stderr}")


KUBECTL_STAND_IN = """#!/usr/bin/env bash
# kubectl as player-certificate.sh uses it: the allocator's CA, a patch, the service's IP.
echo "$*" >> "$KUBECTL_LOG"
case "$*" in
  "get secret allocator-tls-ca"*) base64 -w 0 < "$ALLOCATOR_CA" ;;
  "patch secret allocator-client-ca"*) echo "secret/allocator-client-ca patched" ;;
  "get service agones-allocator"*) printf 203.0.113.7 ;;
  *) echo "kubectl stand-in: unexpected: $*" >&2; exit 1 ;;
esac
"""


def run_player_certificate(script):
    """Runs the script with a kubectl stand-in; checks what it made with openssl."""
    with tempfile.TemporaryDirectory() as directory:
        kubectl = f"{directory}/bin/kubectl"
        subprocess.run(["mkdir", "-p", f"{directory}/bin"], check=True)
        with open(kubectl, "w") as file:
            file.write(KUBECTL_STAND_IN)
        subprocess.run(["chmod", "+x", kubectl], check=True)
        ca = f"{directory}/allocator-ca.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                        f"{directory}/ca-key.pem", "-subj", "/CN=allocator CA", "-out", ca],
                       check=True, capture_output=True)
        env = {"PATH": f"{directory}/bin:/usr/bin:/bin", "KUBECTL_LOG": f"{directory}/log",
               "ALLOCATOR_CA": ca, "HOME": directory}
        out = f"{directory}/players"
        result = subprocess.run(["bash", script, "ann", out], env=env, capture_output=True,
                                text=True)
        assert result.returncode == 0, f"{script}: {result.stderr}"
        assert "roshambo play --allocator https://203.0.113.7" in result.stdout, result.stdout
        assert open(f"{out}/allocator-ca.pem").read() == open(ca).read()
        verify = subprocess.run(["openssl", "verify", "-purpose", "sslclient", "-CAfile",
                                 f"{out}/players-ca.pem", f"{out}/ann.pem"],
                                capture_output=True, text=True)
        assert verify.returncode == 0, f"ann.pem: {verify.stdout}{verify.stderr}"
        log = open(f"{directory}/log").read()
        assert "patch secret allocator-client-ca -n agones-system" in log, log
        # A second player: the players' CA is made and allowlisted once.
        subprocess.run(["bash", script, "bob", out], env=env, check=True, capture_output=True)
        assert open(f"{directory}/log").read().count("patch secret") == 1
        bad = subprocess.run(["bash", script, "a b", out], env=env, capture_output=True)
        assert bad.returncode == 64, "a bad name must be refused"


def check_network_policy(gameserver, policies, where):
    """The Fleet's pods admit the game's port from anywhere and the operations port only
    from the pods a rule selects (the kubelet's probes come from the pod's own node, which
    no NetworkPolicy can block)."""
    assert len(policies) == 1 and policies[0]["kind"] == "NetworkPolicy", where
    spec = policies[0]["spec"]
    labels = gameserver["template"]["metadata"]["labels"]
    selected = spec["podSelector"]["matchLabels"]
    assert selected and selected.items() <= labels.items(), \
        f"{where}: its podSelector must select the Fleet's pods ({labels})"
    assert "Ingress" in spec["policyTypes"], f"{where}: it must restrict ingress"
    game = gameserver["ports"][0]["containerPort"]
    container = next(c for c in gameserver["template"]["spec"]["containers"]
                     if c["name"] == gameserver["container"])
    operations = next(p["containerPort"] for p in container["ports"] if p["name"] == "metrics")
    rules = spec.get("ingress", [])
    for rule in rules:
        assert rule.get("ports"), f"{where}: a rule without ports opens every port"
    open_to_all = {p["port"] for r in rules if not r.get("from") for p in r["ports"]}
    assert game in open_to_all, f"{where}: players must reach port {game} from anywhere"
    assert operations not in open_to_all, f"{where}: port {operations} must not be open to all"
    admitting = [r for r in rules if any(p["port"] == operations for p in r["ports"])]
    assert admitting, f"{where}: nothing may scrape port {operations}"
    for rule in admitting:
        for peer in rule["from"]:
            if "ipBlock" in peer:
                assert peer["ipBlock"]["cidr"] not in ("0.0.0.0/0", "::/0"), \
                    f"{where}: port {operations} must not be open to every address"
            else:
                assert peer.get("podSelector", {}).get("matchLabels"), \
                    f"{where}: port {operations} only to pods a rule selects by their labels"


def main():
    checks = []
    postgres = [o for o in yaml.safe_load_all(open("deploy/postgres/postgres.yaml")) if o]
    validate_kubernetes(postgres, "deploy/postgres/postgres.yaml")
    checks.append(f"deploy/postgres/postgres.yaml: {len(postgres)} objects valid (strict)")

    fleet = yaml.safe_load(open("deploy/agones/fleet.yaml"))
    jsonschema.validate(fleet, FLEET)
    gameserver = fleet["spec"]["template"]["spec"]
    pod = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "roshambo"},
           "template": copy.deepcopy(gameserver["template"])}
    validate_kubernetes([pod], "the Fleet's Pod template")
    containers = [c["name"] for c in gameserver["template"]["spec"]["containers"]]
    assert gameserver["container"] in containers, "spec.container names no container"
    assert set(gameserver["counters"]) == {"players", "rooms", "waiting"}, \
        "the server keeps the Counters players, rooms and waiting"
    assert set(gameserver["lists"]) == {"rooms"}, "the server keeps the List rooms"
    assert gameserver["lists"]["rooms"]["capacity"] == 1000, "the server lists up to 1,000 rooms"
    grace = gameserver["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace > 30, "the grace period must outlast the 30 s drain"
    checks.append("deploy/agones/fleet.yaml: the Fleet against Agones' CRD, its Pod template strict")

    where = "deploy/agones/networkpolicy.yaml"
    policies = [o for o in yaml.safe_load_all(open(where)) if o]
    validate_kubernetes(policies, where)
    check_network_policy(gameserver, policies, where)
    # The operations port opened to all must be refused, or the check checks nothing.
    broken = copy.deepcopy(policies)
    for rule in broken[0]["spec"]["ingress"]:
        rule.pop("from", None)
    try:
        check_network_policy(gameserver, broken, "a copy")
        sys.exit("check-deploy: a NetworkPolicy opening the operations port to all passed")
    except AssertionError:
        pass
    checks.append("deploy/agones/networkpolicy.yaml: strict; the game's port open, the "
                  "operations port only to the selected monitoring pods")

    autoscaler = yaml.safe_load(open("deploy/agones/fleetautoscaler.yaml"))
    jsonschema.validate(autoscaler, FLEET_AUTOSCALER)
    assert autoscaler["spec"]["fleetName"] == fleet["metadata"]["name"]
    assert autoscaler["spec"]["policy"]["counter"]["key"] in gameserver["counters"]
    checks.append("deploy/agones/fleetautoscaler.yaml: against Agones' CRD, its Counter the Fleet's")

    values = yaml.safe_load(open("deploy/agones/helm-values.yaml"))
    allocator = values["agones"]["allocator"]
    assert allocator["install"] and not allocator["disableMTLS"] and not allocator["disableTLS"]
    assert allocator["service"]["http"]["enabled"], "players use the allocator's REST API"
    assert "CountsAndLists=true" in values["agones"]["featureGates"]
    script = "deploy/agones/player-certificate.sh"
    result = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
    assert result.returncode == 0, f"{script}: {result.stderr}"
    run_player_certificate(script)
    checks.append("deploy/agones/helm-values.yaml: the allocator with mutual TLS, REST on; "
                  "player-certificate.sh run against a kubectl stand-in")

    dockerfile = open("deploy/Dockerfile").read()
    assert dockerfile.count("\nFROM ") + dockerfile.startswith("FROM ") >= 2, "multi-stage"
    assert "scripts/package.sh" in dockerfile and "USER roshambo" in dockerfile
    checks.append("deploy/Dockerfile: two stages, built by scripts/package.sh, not root")

    # A broken copy must fail, or the checks check nothing.
    broken = copy.deepcopy(fleet)
    broken["spec"]["template"]["spec"]["health"]["periodSecond"] = 5
    try:
        jsonschema.validate(broken, FLEET)
        sys.exit("check-deploy: a Fleet with an unknown field passed the check")
    except jsonschema.ValidationError:
        pass
    for line in checks:
        print("check-deploy: " + line)
    print(f"check-deploy: {len(checks)} files hold; a Fleet with a misspelt field and a "
          "NetworkPolicy opening the operations port to all are refused")


main()
