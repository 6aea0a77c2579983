#!/usr/bin/env bash
# Installs the Debian packages the project needs to build and test. Idempotent: quiet and fast when
# everything is already present. Run as root on Debian 12 (bookworm).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libboost-dev libboost-system-dev
  nlohmann-json3-dev
  prometheus-cpp-dev
  librapidcheck-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libpcre2-dev
  zlib1g-dev
  prometheus curl
  python3-numpy
  chromium
  clang libclang-rt-14-dev
  python3-yaml python3-jsonschema
  # KV-cache events (server/kv_events/, tests/kv_events/)
  libzmq3-dev cppzmq-dev libmsgpack-cxx-dev python3-zmq python3-msgpack
  # a one-node Slurm cluster for the sharded sweep (tests/cluster/slurm_sweep_test.sh)
  slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# kubectl renders deploy/ in tests/deploy: Debian's kubernetes-client, unless some kubectl is
# already installed (another vendor's package of it would conflict).
if ! command -v kubectl >/dev/null; then
  missing+=(kubernetes-client)
fi

if ((${#missing[@]})); then
  echo "ci/install-deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages of the end-to-end tests (the official openai client, the Vercel AI SDK, LangChain JS,
# the OpenTelemetry JS SDK and its OTLP decoders),
# exactly as the lockfile says.
e2e="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/e2e"
if [[ -f $e2e/package-lock.json ]]; then
  if ! command -v npm >/dev/null; then
    echo "ci/install-deps.sh: npm is missing (Node.js 20 is expected on this machine)" >&2
    exit 1
  fi
  if [[ ! -f $e2e/node_modules/.package-lock.json || $e2e/package-lock.json -nt $e2e/node_modules/.package-lock.json ]]; then
    echo "ci/install-deps.sh: npm ci in tests/e2e" >&2
    (cd "$e2e" && npm ci --no-audit --no-fund --silent >/dev/null)
  fi
fi
