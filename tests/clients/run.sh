#!/usr/bin/env bash
# The client checks: each client library, installed from its registry,
# drives the tengen binary the way that client does (tests/clients/README.md).
#
#   tests/clients/run.sh [PATH/TO/tengen] [sabaki|gomill|katrain ...]
#
# Each check prints "SKIP: reason" and passes when its runtime or registry
# is missing; any real mismatch fails this script.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tengen="${1:-${CARGO_TARGET_DIR:-$here/../../target}/release/tengen}"
shift || true
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(sabaki gomill katrain)
if [ ! -x "$tengen" ]; then
    echo "no tengen binary at $tengen (cargo build --release first)"
    exit 1
fi
tengen="$(cd "$(dirname "$tengen")" && pwd)/$(basename "$tengen")"

sabaki() {
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        echo "SKIP: node and npm are not installed"
        return 0
    fi
    if [ ! -f "$here/sabaki/node_modules/@sabaki/gtp/package.json" ]; then
        (cd "$here/sabaki" && timeout 300 npm ci --no-audit --no-fund --silent) || {
            echo "SKIP: npm could not install @sabaki/gtp 3.0.0 (registry unreachable?)"
            return 0
        }
    fi
    timeout 300 node "$here/sabaki/check.mjs" "$tengen"
}
gomill() { timeout 900 python3 "$here/gomill/check.py" "$tengen"; }
katrain() { timeout 600 python3 "$here/katrain/check.py" "$tengen"; }

failed=()
for c in "${which[@]}"; do
    echo "== client check: $c"
    start=$SECONDS
    if "$c"; then :; else failed+=("$c"); fi
    echo "== $c: $((SECONDS - start)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "client checks failed: ${failed[*]}"
    exit 1
fi
