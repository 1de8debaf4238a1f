#!/bin/sh
# make demo: install the example configuration into a throw-away home and fire
# a few events at it with `noora-hooks exec`, showing each combined answer.
set -eu
case $1 in
  */*) bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;;
  *) bin=$(command -v "$1") ;;
esac
examples=$(cd "$(dirname "$0")" && pwd)
demo_home=$(mktemp -d "${TMPDIR:-/tmp}/noora-hooks-demo.XXXXXX")
trap 'rm -rf "$demo_home"' EXIT

# The config refers to ~/.noora/agent-hooks/..., so the demo gets its own HOME.
export HOME="$demo_home"
export NOORA_HOME="$demo_home/.noora"
mkdir -p "$NOORA_HOME/agent-hooks"
cp "$examples/config.yaml" "$NOORA_HOME/config.yaml"
cp "$examples"/agent-hooks/* "$NOORA_HOME/agent-hooks/"

# A small git repository, so that inject-git-status has something to say.
repo="$demo_home/project"
mkdir -p "$repo" && cd "$repo"
git init -q . && printf 'draft\n' > notes.txt

fire() { # fire EVENT PAYLOAD DESCRIPTION
  printf '\n$ noora-hooks exec %s < %s    # %s\n' "$1" "$2" "$3"
  "$bin" exec "$1" --payload-file "$examples/payloads/$2" 2>&1
}

echo "noora-hooks demo: config $NOORA_HOME/config.yaml"
printf '\n# First run: the hooks are not approved yet, so they are skipped with a warning.\n'
fire pre_tool_call rm-rf.json "not approved: nothing runs"

printf '\n# Approve them all (what `noora-hooks approve --yes` or --accept-hooks records).\n'
"$bin" exec on_session_start --accept-hooks </dev/null >/dev/null
"$bin" exec pre_tool_call --accept-hooks --payload-file "$examples/payloads/ls.json" >/dev/null
"$bin" exec pre_llm_call --accept-hooks --payload-file "$examples/payloads/llm-turn.json" >/dev/null
"$bin" exec post_tool_call --accept-hooks --payload-file "$examples/payloads/tool-done.json" >/dev/null
echo "approved: $(grep -c '"event"' "$NOORA_HOME/shell-hooks-allowlist.json") hooks in $NOORA_HOME/shell-hooks-allowlist.json"

fire pre_tool_call rm-rf.json "blocked by block-rm-rf.sh"
fire pre_tool_call ls.json "allowed: no answer"
fire pre_tool_call write-secret.json "blocked by the fail-closed secret scanner"
fire pre_llm_call llm-turn.json "git status injected as context"
fire post_tool_call tool-done.json "observer: logged, no answer"
printf '\n$ tail -n 1 %s\n' "\$NOORA_HOME/logs/audit.jsonl"
tail -n 1 "$NOORA_HOME/logs/audit.jsonl"
printf '\n$ noora-hooks exec pre_tool_call --trace < rm-rf.json    # what each hook did\n'
"$bin" exec pre_tool_call --trace --payload-file "$examples/payloads/rm-rf.json"
