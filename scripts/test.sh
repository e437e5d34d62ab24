#!/usr/bin/env bash
# The test command (`npm test` runs this): set up what the tests need on this machine — npm packages,
# tmux, Chromium for the dashboard's browser tests, PostgreSQL's server programs for the PostgreSQL bus, iproute2
# for its network-namespace test, systemd-analyze for the service unit's —
# then lint, build, type-check and run every test (arguments go to vitest: `npm test -- test/unit`, or `--project integration`: one tier).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
BATON_SCRIPT=test
. scripts/lib/require.sh
need_node_modules
need_tmux
need_chromium
need_postgres
need_iproute2
need_systemd_analyze
say 'formatting, lint and import rules (biome, dependency-cruiser)…'
npm run --silent lint >&2
say 'building…'
npm run --silent build >&2
say 'type-checking src, web and tests…'
npm run --silent typecheck >&2
exec npx vitest run "$@"
