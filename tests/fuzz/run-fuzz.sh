#!/bin/sh
# Bounded libFuzzer run: FUZZER SECONDS WORKDIR [SEED_DIR...]. Starts from
# the committed seed directories under tests/fuzz (default: corpus and
# regress), writes new inputs and any crash into WORKDIR/fuzz-run-NAME
# (fixed seed, FUZZ_SEED overrides, so CI runs repeat), prints libFuzzer's
# final stats, fails on a finding.
set -u
fuzzer=$1 secs=$2 work=$3
shift 3
[ $# -gt 0 ] || set -- corpus regress
src=$(cd "$(dirname "$0")" && pwd)
out=$work/fuzz-run-$(basename "$fuzzer")
seeds=
for d in "$@"; do
	seeds="$seeds $src/$d"
done
rm -rf "$out"
mkdir -p "$out/corpus" "$out/artifacts" || exit 1
echo "fuzzing $(basename "$fuzzer") for ${secs}s; new inputs in $out/corpus" >&2
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=65536 \
	-max_len=65536 -print_final_stats=1 -seed=${FUZZ_SEED:-1} \
	-artifact_prefix="$out/artifacts/" \
	"$out/corpus" $seeds 2>"$out/log"
rc=$?
grep -E '^(stat::|#[0-9]+.*DONE|INFO: Running with|==[0-9]+==ERROR|SUMMARY)' \
	"$out/log" >&2
if [ $rc -ne 0 ]; then
	tail -n 60 "$out/log" >&2
	ls -l "$out/artifacts" >&2
	echo "fuzzer found a problem (exit $rc)" >&2
	exit 1
fi
exit 0
