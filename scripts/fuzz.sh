#!/usr/bin/env bash
# Fuzzes every Jazzer target (@FuzzTest) in exactly-once-autoconfigure, one after another, each for
# its maxDuration (2 minutes). Findings are written next to the seeds, under
# exactly-once-autoconfigure/src/test/resources/<package>/<Class>Inputs/<method>/, and fail that
# target; the growing corpus stays in exactly-once-autoconfigure/.cifuzz-corpus/ (not committed).
# Usage: scripts/fuzz.sh [Class#method ...]   (default: all targets)
set -uo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(
		StoreKeyEncoderFuzzTests#differentKeysNeverShareAStoreKey
		HeaderEncodingFuzzTests#anyHeaderIsWrittenAndReadBackAsSent
		RawStreamMessageFuzzTests#anyHeaderBlockBecomesAMessageTheClientCanWrite
		DeliveryInputsFuzzTests#everyDeliveryEndsInAKeyAndAPayloadOrPoison
		DeliveryInputsFuzzTests#differentMessageIdsNeverShareAKey
		DeadLetterHeadersFuzzTests#anyOriginalGetsDeadLetterHeadersWithinTheLimitOrARefusal
	)
fi
status=0
for target in "${targets[@]}"; do
	echo "== $target ($(date -u +%H:%M:%S))"
	log="exactly-once-autoconfigure/target/fuzz-${target//#/-}.log"
	mkdir -p exactly-once-autoconfigure/target
	JAZZER_FUZZ=1 JAZZER_INSTRUMENTATION_INCLUDES='dev.exactlyonce.**:io.nats.client.support.**:io.nats.client.impl.Headers*' \
		./mvnw -B -o -pl exactly-once-autoconfigure -am test -Dtest="$target" \
		-Dsurefire.failIfNoSpecifiedTests=false -DargLine=-Xmx1g >"$log" 2>&1 || status=1
	grep -E '^#[0-9]+.*DONE|Done [0-9]+ runs|Tests run:.*Fuzz|FAILURE|Exception:|crash-' "$log" | tail -8
done
exit $status
