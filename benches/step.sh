# Sourced by the device scripts (benches/gpu-check.sh, training/gpu-burst.sh).
# step NAME SECONDS COMMAND...: runs it under a time limit and says how it
# ended and how long it took, so one slow step cannot take the others' time.
step() {
    local name=$1 limit=$2
    shift 2
    echo
    echo "== $name: $*"
    local t0
    t0=$(date +%s%N)
    timeout "$limit" "$@"
    local rc=$?
    echo "-- $name: exit $rc after $((($(date +%s%N) - t0) / 1000000)) ms"
}
