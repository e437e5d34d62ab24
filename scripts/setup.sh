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
  first="$(node -e 'const c=require(process.argv[1]);const a=c.agents?Object.keys(c.agents)[0]:"claude1";console.log((c.agents?.[a]?.session)||a)' "$root/config.json" 2>/dev/null || echo claude1)"
  echo "[setup] attaching to ${first} (detach with Ctrl-b d; other agents: tmux attach -t NAME)"
  sleep 1
  exec tmux attach -t "=${first}"
fi
