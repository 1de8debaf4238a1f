#!/bin/sh
# pre_tool_call, matcher "terminal": block recursive deletes of / or ~.
# Reads the SPEC §4 payload on stdin; answers in the Claude Code block shape.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '"command": *"[^"]*\brm +(-[a-zA-Z]*[rR][a-zA-Z]* +)+(/|~|\$HOME)( |"|/\*)'; then
  printf '{"decision": "block", "reason": "blocked: recursive delete of / or ~ is not permitted"}\n'
else
  printf '{}\n'
fi
