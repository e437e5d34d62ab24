#!/usr/bin/env bash
# The agent-side helper: send a reply to the peer whose turn comes next.
#   ../../scripts/send.sh "your message"
# Wraps "baton post" (the sender comes from $BATON_AGENT, set by baton up; or pass --as NAME first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -eq 0 ]; then
  echo 'usage: send.sh [--as AGENT] [--to AGENT] "message text"' >&2
  exit 2
fi
opts=()
while [ $# -gt 1 ]; do
  case "$1" in
    --as|--to|--type|--subject|--config) opts+=("$1" "$2"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
exec node "$root/dist/cli.js" post "${opts[@]}" -- "$*"
