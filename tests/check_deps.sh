#!/bin/sh
# check_deps.sh: the include directions of harness/layers.txt, checked over every source
# file of the repository (make check-deps). Prints each forbidden include as
# FILE:LINE: INCLUDE (why) and exits 1, or prints "include directions: ok".
cd "$(dirname "$0")/.." || exit 2
grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"(harness|algorithms|datasets)/' \
  -r harness algorithms datasets --include='*.c' --include='*.h' |
awk -v layers=harness/layers.txt '
  BEGIN {
    while ((getline line < layers) > 0) {
      sub(/#.*/, "", line)
      if (line ~ /^[a-z]+:/) {
        n = split(line, w, /[: \t]+/)
        folder = w[1]; known[folder] = 1
        for (i = 2; i <= n; i++) if (w[i] != "") may[folder, w[i]] = 1
      }
    }
  }
  {
    split($0, loc, ":"); file = loc[1]; lineno = loc[2]
    match($0, /"[^"]+"/); inc = substr($0, RSTART + 1, RLENGTH - 2)
    split(file, fp, "/"); split(inc, ip, "/")
    why = ""
    if (fp[1] != "harness" && ip[1] == "harness") why = fp[1] " never includes harness/"
    else if (fp[1] == "datasets" && ip[1] == "algorithms" && (ip[2] == "models" || ip[2] == "privacy" || ip[3] == ""))
      why = "datasets/ includes only algorithms/base/"
    else if (fp[1] == "harness" && ip[1] == "harness") {
      from = fp[2]; to = ip[2]
      if (!(from in known)) why = "harness/" from " is not a layer of " layers
      else if (!(to in known)) why = "harness/" to " is not a layer of " layers
      else if (from != to && !((from, to) in may)) why = from " may not include " to " (" layers ")"
      else if (from != to && ip[3] ~ /_int\.h$/) why = ip[3] " is private to harness/" to
    }
    if (why != "") { print file ":" lineno ": " inc " (" why ")"; bad++ }
  }
  END {
    if (bad) { print bad " forbidden include" (bad > 1 ? "s" : "") > "/dev/stderr"; exit 1 }
    print "include directions: ok"
  }'
