#!/usr/bin/env bash
# Seed-compatible entry point: does what "baton up" does. Installs and builds on first use, so a fresh
# clone needs nothing but Node >= 20.19 and tmux.
#   bash scripts/setup.sh            # the agents named in config.json
#   bash scripts/setup.sh --demo     # the bundled demo agents (no agent CLI needed)
# Any other "baton up" option (--fresh, --config FILE) is passed through.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v tmux >/dev/null 2>&1; then
  echo "baton needs tmux: apt-get install -y tmux (Debian/Ubuntu) or brew install tmux (macOS)" >&2
  exit 1
fi
if [ ! -d node_modules ]; then
  echo "[setup] installing dependencies (npm ci)…"
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ ! -f dist/cli.js ] || [ -n "$(find src -newer dist/cli.js -name '*.ts' -print -quit)" ]; then
  echo "[setup] building…"
  npm run --silent build
fi
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
