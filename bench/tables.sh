#!/bin/sh
# Issue 27's tables in one go, on an idle machine: `txpath bench` one
# packet at a time and in bursts of 32 (2 producers, the null driver), each
# run's targets (every ratio within one run), then callgrind's instructions
# per packet one at a time, for the best one-queue mode and for --era 6.x.
# usage: tables.sh path/to/txpath [REPS [SECONDS]]
set -eu
TXPATH=$1
REPS=${2:-5}
SECONDS_PER_RUN=${3:-0.25}
here=$(dirname "$0")
for burst in 1 32; do
	echo "== txpath bench --threads 2 --reps $REPS --seconds $SECONDS_PER_RUN --no-sim --burst $burst --bulk $burst"
	"$TXPATH" bench --threads 2 --reps "$REPS" --seconds "$SECONDS_PER_RUN" --no-sim \
		--burst "$burst" --bulk "$burst"
	echo
done
echo "== instructions per packet, one at a time"
sh "$here/callgrind.sh" "$TXPATH" --burst 1 --bulk 1
sh "$here/callgrind.sh" "$TXPATH" --burst 1 --bulk 1 --era 6.x
sh "$here/callgrind.sh" "$TXPATH" --burst 1 --bulk 1 --lock core --runner exclusive \
	--queues 1 --defer drain
