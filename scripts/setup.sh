#!/usr/bin/env bash
# The run command (seed-compatible entry point): does what "baton up" does, after setting up what running
# needs on this machine — npm packages, a build, tmux (installed where it can be; otherwise it stops and
# prints the one command that would). A fresh clone needs nothing but Node >= 20.19.
#   bash scripts/setup.sh            # the agents named in config.json
#   bash scripts/setup.sh --demo     # the bundled demo agents (no agent CLI needed)
# Any other "baton up" option (--fresh, --topic TEXT, --config FILE) is passed through.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BATON_SCRIPT=setup
. scripts/lib/require.sh
need_tmux
need_node_modules
need_build
node dist/cli.js up "$@"
# Like the original tool: end up watching the first agent when run from a terminal.
if [ -t 0 ] && [ -t 1 ] && [ -z "${TMUX:-}" ] && [ -z "${CI:-}" ]; then
  config=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --config) config=(--config "$2"); shift 2 ;;
      --config=*) config=("$1"); shift ;;
      *) shift ;;
    esac
  done
  first="$(node dist/cli.js status --json "${config[@]}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(Object.keys(JSON.parse(s).agents)[0]))')"
  echo "[setup] attaching to ${first} (detach with Ctrl-b d; the others: node dist/cli.js attach NAME)"
  sleep 1
  exec node dist/cli.js attach "$first" "${config[@]}"
fi
