# The bad-input catalogue (tests/bad_inputs/README.md): every malformed config and data
# file gets its exact error line, exit status 2, and nothing written.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2

# The messages name the folders searched for data: only the case's own --data-dir, not
# whatever $DPERM_DATA the machine has.
unset DPERM_DATA
n=0
for f in tests/bad_inputs/*.yaml; do
  name=$(basename "$f" .yaml)
  expect=$(sed -n 's/^# expect: //p' "$f")
  args=$(sed -n 's/^# args: //p' "$f")
  cmd=$(sed -n 's/^# command: //p' "$f")
  n=$((n + 1))
  # shellcheck disable=SC2086 # args are words by design
  "$DPERM" "${cmd:-run}" "$f" --out "$WORK/$name" $args > "$WORK/out" 2> "$WORK/err"
  rc=$?
  first=$(head -n 1 "$WORK/err")
  if [ $rc != 2 ]; then
    fail "$name: exit $rc, expected 2"
  elif [ "$first" != "$expect" ]; then
    fail "$name: got:    $first"
    echo "     expected: $expect"
  elif [ "$(wc -l < "$WORK/err")" -gt 2 ] || { [ "$(wc -l < "$WORK/err")" = 2 ] && ! sed -n 2p "$WORK/err" | grep -q '^dperm: hint: '; }; then
    fail "$name: more than the error line and a hint on stderr"
  elif [ -e "$WORK/$name" ]; then
    fail "$name: wrote $WORK/$name"
  else
    pass "$name"
  fi
done
check "the catalogue has at least 40 cases ($n)" [ "$n" -ge 40 ]
finish
