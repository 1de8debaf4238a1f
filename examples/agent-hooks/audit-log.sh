#!/bin/sh
# post_tool_call: append the payload, one JSON line, to $NOORA_HOME/logs/audit.jsonl.
log_dir="${NOORA_HOME:-$HOME/.noora}/logs"
mkdir -p "$log_dir"
cat >> "$log_dir/audit.jsonl"
printf '{}\n'
