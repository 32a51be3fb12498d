#!/bin/sh
# Runs a libFuzzer command with its output in LOG, then prints LOG on stdout.
# When the fuzzer fails it also prints, on stderr and last, what a CI log
# keeps: the fuzzer's own report (the sanitizer's or remat-fuzz's message and
# the lines after it) and each input it saved, in hex, so a finding can be
# replayed from the CI output alone (docs/fuzzing.md).
#   run-logged.sh LOG ARTIFACT_DIR COMMAND...
log=$1
artifacts=$2
shift 2
"$@" >"$log" 2>&1
status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  {
    echo "== $1 failed (exit $status); its report:"
    grep -n -m 1 -A 40 -E '^==[0-9]+==|ERROR:|VIOLATION|runtime error' "$log" ||
      tail -n 60 "$log"
    for f in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/oom-* "$artifacts"/timeout-*; do
      [ -f "$f" ] || continue
      echo "== saved input $f (hex; replay: xxd -r -p > FILE, then remat-fuzz FILE):"
      od -An -v -tx1 "$f" | tr -d ' \n'
      echo
    done
  } >&2
fi
exit "$status"
