#!/usr/bin/python3
"""Validates Kubernetes manifests for llmserve against the vendored JSON schemas of schemas/ and
checks that the objects fit together (the pool, the monitor and the Service select the Deployment's
pods, named ports exist, the KV-events flag is vLLM's JSON).

  validate_manifests.py --kustomize deploy/overlays/sim   render with `kubectl kustomize`, validate
  validate_manifests.py FILE.yaml...                      validate rendered YAML

Prints one line per problem, naming the object and the field; exits 1 on any problem, 2 on bad use.
"""
import argparse
import json
import pathlib
import subprocess
import sys

import jsonschema
import yaml

SCHEMAS = pathlib.Path(__file__).resolve().parent / "schemas"
SCHEMA_OF = {
    ("apps/v1", "Deployment"): "deployment.apps-v1.json",
    ("v1", "Service"): "service.v1.json",
    ("inference.networking.k8s.io/v1", "InferencePool"): "inferencepool.inference.networking.k8s.io-v1.json",
    ("inference.networking.x-k8s.io/v1alpha2", "InferenceObjective"):
        "inferenceobjective.inference.networking.x-k8s.io-v1alpha2.json",
    ("monitoring.coreos.com/v1", "PodMonitor"): "podmonitor.monitoring.coreos.com-v1.json",
    ("monitoring.coreos.com/v1", "PrometheusRule"): "prometheusrule.monitoring.coreos.com-v1.json",
    ("batch/v1", "Job"): "job.batch-v1.json",
}


def load_validators():
    store = {}
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    validators = {}
    for key, name in SCHEMA_OF.items():
        schema = store[f"https://llmserve.invalid/schemas/{name}"]
        jsonschema.Draft7Validator.check_schema(schema)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        validators[key] = jsonschema.Draft7Validator(schema, resolver=resolver)
    return validators


def object_name(obj):
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind', '?')}/{meta.get('name', '?') if isinstance(meta, dict) else '?'}"


def schema_problems(objects, validators):
    problems = []
    for obj in objects:
        if not isinstance(obj, dict):
            problems.append(f"a document is not an object: {obj!r:.60}")
            continue
        key = (obj.get("apiVersion"), obj.get("kind"))
        validator = validators.get(key)
        if validator is None:
            problems.append(f"{object_name(obj)}: no schema for apiVersion {key[0]!r} kind {key[1]!r}")
            continue
        for error in sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path)):
            where = ".".join(str(p) for p in error.absolute_path) or "(top)"
            problems.append(f"{object_name(obj)}: {where}: {error.message}")
    return problems


def selects(selector_labels, labels):
    return bool(selector_labels) and all(labels.get(k) == v for k, v in selector_labels.items())


def kv_events_problems(name, container):
    args = container.get("args", [])
    if "--kv-events-config" not in args:
        return []
    i = args.index("--kv-events-config")
    if i + 1 >= len(args):
        return [f"{name}: --kv-events-config has no value"]
    try:
        config = json.loads(args[i + 1])
    except json.JSONDecodeError as e:
        return [f"{name}: --kv-events-config is not JSON: {e}"]
    problems = []
    if config.get("enable_kv_cache_events") is not True:
        problems.append(f"{name}: --kv-events-config: enable_kv_cache_events must be true")
    if config.get("publisher") != "zmq":
        problems.append(f"{name}: --kv-events-config: publisher must be \"zmq\"")
    env = {e["name"] for e in container.get("env", [])}
    topic = str(config.get("topic", ""))
    if not topic.startswith("kv@"):
        problems.append(f"{name}: --kv-events-config: topic must be kv@<pod>:<port>@<model>")
    for var in ("POD_IP",):
        if f"$({var})" in topic and var not in env:
            problems.append(f"{name}: --kv-events-config: topic uses $({var}) but env has no {var}")
    return problems


def fit_problems(objects):
    """How the objects refer to one another (what the API server cannot check)."""
    problems = []
    by_kind = {}
    for obj in objects:
        if isinstance(obj, dict):
            by_kind.setdefault(obj.get("kind"), []).append(obj)
    deployments = by_kind.get("Deployment", [])
    pods = []  # (labels, containers) of each Deployment's pod template
    for d in deployments:
        name = object_name(d)
        spec = d.get("spec", {})
        labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
        match = spec.get("selector", {}).get("matchLabels", {})
        if not selects(match, labels):
            problems.append(f"{name}: spec.selector does not select the pod template's labels")
        containers = spec.get("template", {}).get("spec", {}).get("containers", [])
        pods.append((labels, containers))
        for c in containers:
            problems += kv_events_problems(f"{name} container {c.get('name')}", c)
            env = {e.get("name") for e in c.get("env", [])}
            for var in ("POD_NAME", "POD_NAMESPACE"):
                if var not in env:
                    problems.append(f"{name}: container {c.get('name')} has no {var} in env")
            port_names = {p.get("name") for p in c.get("ports", [])}
            for probe in ("readinessProbe", "livenessProbe"):
                get = c.get(probe, {}).get("httpGet")
                if not get or get.get("path") != "/health":
                    problems.append(f"{name}: container {c.get('name')}: {probe} must GET /health")
                elif isinstance(get.get("port"), str) and get["port"] not in port_names:
                    problems.append(f"{name}: {probe}.httpGet.port {get['port']!r} is no container port")
    def ports_of(labels_selector):
        numbers, names = set(), set()
        for labels, containers in pods:
            if selects(labels_selector, labels):
                for c in containers:
                    for p in c.get("ports", []):
                        numbers.add(p.get("containerPort"))
                        names.add(p.get("name"))
        return numbers, names
    for pool in by_kind.get("InferencePool", []):
        spec = pool.get("spec", {})
        numbers, _ = ports_of(spec.get("selector", {}).get("matchLabels", {}))
        if not numbers:
            problems.append(f"{object_name(pool)}: spec.selector selects no Deployment's pods")
        for port in spec.get("targetPorts", []):
            if numbers and port.get("number") not in numbers:
                problems.append(f"{object_name(pool)}: targetPorts {port.get('number')} is no container port")
    pool_names = {p.get("metadata", {}).get("name") for p in by_kind.get("InferencePool", [])}
    for objective in by_kind.get("InferenceObjective", []):
        ref = objective.get("spec", {}).get("poolRef", {}).get("name")
        if ref not in pool_names:
            problems.append(f"{object_name(objective)}: spec.poolRef.name {ref!r} names no InferencePool")
    for monitor in by_kind.get("PodMonitor", []):
        numbers, names = ports_of(monitor.get("spec", {}).get("selector", {}).get("matchLabels", {}))
        if not numbers:
            problems.append(f"{object_name(monitor)}: spec.selector selects no Deployment's pods")
        for ep in monitor.get("spec", {}).get("podMetricsEndpoints", []):
            if numbers and "port" in ep and ep["port"] not in names:
                problems.append(f"{object_name(monitor)}: podMetricsEndpoints port {ep['port']!r} is no container port")
    for service in by_kind.get("Service", []):
        numbers, names = ports_of(service.get("spec", {}).get("selector", {}))
        if not numbers:
            problems.append(f"{object_name(service)}: spec.selector selects no Deployment's pods")
        for p in service.get("spec", {}).get("ports", []):
            target = p.get("targetPort", p.get("port"))
            if numbers and target not in numbers and target not in names:
                problems.append(f"{object_name(service)}: targetPort {target!r} is no container port")
    return problems


def validate(objects, validators):
    return schema_problems(objects, validators) + fit_problems(objects)


def render(overlay):
    result = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {overlay} failed: {result.stderr.strip()}")
    return result.stdout


def parse(text, source):
    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        raise RuntimeError(f"{source}: not YAML: {e}") from e


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kustomize", metavar="DIR", help="render DIR with kubectl kustomize")
    parser.add_argument("files", nargs="*", help="rendered manifests")
    args = parser.parse_args()
    if not args.kustomize and not args.files:
        parser.error("give --kustomize DIR or FILE...")
    try:
        objects = parse(render(args.kustomize), args.kustomize) if args.kustomize else []
        for f in args.files:
            objects += parse(pathlib.Path(f).read_text(), f)
    except (OSError, RuntimeError) as e:
        print(f"validate_manifests.py: {e}", file=sys.stderr)
        return 2
    problems = validate(objects, load_validators())
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
