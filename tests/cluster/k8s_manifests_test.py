#!/usr/bin/python3
"""ctest k8s_manifests: the Kubernetes Jobs that `llmsim sweep ... --shards N --emit k8s` writes
(docs/cluster.md) parse as YAML and validate against tests/deploy/schemas/job.batch-v1.json
(python3-yaml, python3-jsonschema); the shard Job is an Indexed Job of N completions whose pods run
`llmsim sweep ... --shard auto/N` with the trace from a read-only volume and --out on the results
volume, and the merge Job runs `llmsim sweep-merge` on that folder. A table of broken Jobs is
rejected by the schema, so that the check can fail.
Usage: k8s_manifests_test.py PATH/TO/llmsim
"""
import copy
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.dont_write_bytecode = True
sys.path.insert(0, str(HERE.parent / "deploy"))
import validate_manifests  # noqa: E402  (tests/deploy/validate_manifests.py)

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def emit(llmsim, out, shards, extra):
    cmd = [llmsim, "sweep", "traces/azure-conv-sample.json", "--set", "max-num-seqs=8,32,128",
           "--set", "kv-cache-dtype=auto,fp8", "--shards", str(shards), "--emit", "k8s",
           "--out", str(out)] + extra
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {result.returncode}: {result.stderr}")
    return result


def load(path):
    return validate_manifests.parse(path.read_text(), str(path))


def main():
    llmsim = sys.argv[1]
    validators = validate_manifests.load_validators()
    with tempfile.TemporaryDirectory() as tmp:
        for shards, extra in ((3, []), (7, ["--report", "sweep-report.html",
                                            "--image", "registry.example/llmserve:v1"])):
            out = pathlib.Path(tmp) / f"Sweep_{shards}"
            emit(llmsim, out, shards, extra)
            shard_docs = load(out / "sweep-shards.yaml")
            merge_docs = load(out / "sweep-merge.yaml")
            check(len(shard_docs) == 1 and len(merge_docs) == 1, "one Job per file")
            problems = validate_manifests.validate(shard_docs + merge_docs, validators)
            check(not problems, f"schema problems: {problems}")
            job, merge = shard_docs[0], merge_docs[0]
            spec = job["spec"]
            check(job["apiVersion"] == "batch/v1" and job["kind"] == "Job", "shard Job kind")
            check(spec.get("completionMode") == "Indexed", "completionMode Indexed")
            check(spec.get("completions") == shards, f"completions {spec.get('completions')}")
            check(spec.get("parallelism") == shards, f"parallelism {spec.get('parallelism')}")
            pod = spec["template"]["spec"]
            check(pod["restartPolicy"] in ("Never", "OnFailure"), "restartPolicy")
            command = pod["containers"][0]["command"]
            check(command[:2] == ["llmsim", "sweep"], f"command {command}")
            check(command[-2:] == ["--shard", f"auto/{shards}"], f"--shard auto/N: {command}")
            check("/traces/azure-conv-sample.json" in command, f"trace from the volume: {command}")
            out_dir = f"/results/Sweep_{shards}"
            check(command[command.index("--out") + 1] == out_dir, f"--out {command}")
            check("--report" not in command and "--emit" not in command
                  and "--shards" not in command, f"no merge or emit flags: {command}")
            mounts = {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}
            check(mounts["traces"]["mountPath"] == "/traces" and mounts["traces"].get("readOnly"),
                  "traces mounted read-only")
            check(mounts["results"]["mountPath"] == "/results", "results mounted")
            claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]}
            check(claims == {"traces": "llmsim-traces", "results": "llmsim-results"}, f"{claims}")
            mcommand = merge["spec"]["template"]["spec"]["containers"][0]["command"]
            want = ["llmsim", "sweep-merge", out_dir, "--shards", str(shards), "--out", out_dir]
            if extra:
                want += ["--report", out_dir + "/sweep-report.html"]
                check(pod["containers"][0]["image"] == "registry.example/llmserve:v1", "--image")
            check(mcommand == want, f"merge command {mcommand} != {want}")
            check("completionMode" not in merge["spec"], "the merge Job is not indexed")
            check(job["metadata"]["name"] != merge["metadata"]["name"], "distinct names")
            script = (out / "sweep-k8s.sh").read_text()
            check(f"job/{job['metadata']['name']}" in script, "the script waits for the shards")

        # Broken Jobs the schema must refuse (so that the validation above can fail).
        good = load(pathlib.Path(tmp) / "Sweep_3" / "sweep-shards.yaml")[0]
        broken = {
            "restartPolicy Always": lambda j: j["spec"]["template"]["spec"].update(
                restartPolicy="Always"),
            "Indexed without completions": lambda j: j["spec"].pop("completions"),
            "completions over 100000": lambda j: j["spec"].update(completions=100001),
            "unknown completionMode": lambda j: j["spec"].update(completionMode="Sharded"),
            "misspelt field": lambda j: j["spec"].update(completion=3),
            "wrong apiVersion": lambda j: j.update(apiVersion="batch/v2"),
            "no containers": lambda j: j["spec"]["template"]["spec"].update(containers=[]),
            "backoffLimitPerIndex when not Indexed": lambda j: (
                j["spec"].pop("completionMode"), j["spec"].update(backoffLimitPerIndex=1)),
        }
        for what, spoil in broken.items():
            job = copy.deepcopy(good)
            spoil(job)
            check(validate_manifests.schema_problems([job], validators),
                  f"the schema accepted a Job with {what}")
    if failures:
        for f in failures:
            print(f"FAIL: {f}")
        return 1
    print("k8s_manifests: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
