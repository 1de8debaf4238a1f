#!/bin/sh
# pre_llm_call: add `git status --short` of the working directory to the turn.
cat >/dev/null # the payload is not needed
status=$(git status --short 2>/dev/null | head -n 50)
if [ -z "$status" ]; then
  printf '{}\n'
  exit 0
fi
# JSON-escape: backslashes, quotes, tabs, then join lines with \n.
escaped=$(printf '%s\n' "$status" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }')
printf '{"context": "Uncommitted changes in the working tree:\\n%s"}\n' "$escaped"
