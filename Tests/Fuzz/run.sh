#!/bin/sh
# Builds the collector's ingest fuzzer (libFuzzer + AddressSanitizer) outside SwiftPM and
# runs it. Usage: Tests/Fuzz/run.sh [SECONDS] [extra libFuzzer flags]; default 60 s.
# Crashing inputs are written to Tests/Fuzz/artifacts/; the corpus grows in a temp dir
# (seeded from Tests/Fuzz/seeds/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
work=$(mktemp -d "${TMPDIR:-/tmp}/beacon-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/corpus" "$here/artifacts"
find "$root/Sources/BeaconWire" -name "*.swift" -exec cp {} "$work/src/" \;
for file in Ingest/BatchAdmission Ingest/EventFields Ingest/EventType Ingest/EventValidator Ingest/MessageIdSet \
    Ingest/ParsedBody Ingest/Parsing/BatchParser Ingest/Parsing/GzipInflater Ingest/Parsing/JSONScanner \
    Ingest/Parsing/UTF8Validator Errors/CollectorError Errors/CollectorError+Catalogue; do
    cp "$root/Sources/BeaconCollector/$file.swift" "$work/src/"
done
# One module: the collector's `import BeaconWire` lines name a module that is now this one.
sed -i '/^import BeaconWire$/d' "$work"/src/*.swift
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name IngestFuzz \
    -I "$root/Sources/CZlib" "$here/IngestFuzzHarness.swift" "$work"/src/*.swift -o "$work/ingest-fuzz"
cp "$here"/seeds/* "$work/corpus/" 2>/dev/null || true
"$work/ingest-fuzz" -max_total_time="$seconds" -max_len=70000 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$here/artifacts/" -print_final_stats=1 "$@" "$work/corpus"
