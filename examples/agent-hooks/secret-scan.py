#!/usr/bin/env python3
"""pre_tool_call, fail_closed: block tool calls whose arguments carry a secret.

Reads the SPEC §4 payload on stdin and scans every string in tool_input.
Run it with fail_closed: true, so that a crash or a hang blocks instead of
letting the call through.
"""
import json
import re
import sys

PATTERNS = {
    "an AWS access key": re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    "a private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "a GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "a Slack token": re.compile(r"\bxox[abpors]-[A-Za-z0-9-]{10,}\b"),
}


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def main():
    payload = json.load(sys.stdin)
    for text in strings(payload.get("tool_input") or {}):
        for what, pattern in PATTERNS.items():
            if pattern.search(text):
                print(json.dumps({
                    "action": "block",
                    "message": f"blocked: the {payload.get('tool_name')} call contains {what}",
                }))
                return
    print("{}")


if __name__ == "__main__":
    main()
