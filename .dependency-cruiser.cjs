/**
 * The architecture as import rules, checked by `npm run lint` (scripts/check-imports.mjs; `npm test` runs it):
 * no import cycles, and dependencies point one way —
 *
 *   core → lib → config → bus, terminal → daemon → app → ui, cli      (demo sits beside cli)
 *
 * core/ is pure (no node built-in, no package but zod); bus/ and terminal/ know nothing of each other
 * or of anything above them; bus/files/ and bus/postgres/ know nothing of each other either (both use the
 * agents' folder protocol, bus/folders/). Type-only imports count: an upward type is an upward dependency too.
 */
const layer = (name, mayUse) => ({
  name: `${name}-imports-only-below`,
  comment: `${name}/ may import only ${mayUse.join(', ')}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/(${[name, ...mayUse].join('|')})/`] },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'an import cycle', from: {}, to: { circular: true } },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'core/ takes state and input and returns a decision: no node built-ins, no packages but zod',
      from: { path: '^src/core/' },
      to: { pathNot: ['^src/core/', 'node_modules/zod/'] },
    },
    layer('core', []),
    layer('lib', []),
    layer('config', ['core', 'lib']),
    layer('bus', ['core', 'lib', 'config']),
    layer('terminal', ['core', 'lib', 'config']),
    layer('daemon', ['core', 'lib', 'config', 'bus', 'terminal']),
    layer('app', ['core', 'lib', 'config', 'bus', 'terminal', 'daemon', 'ui/api.d.ts']),
    layer('ui', ['core', 'lib', 'config', 'bus', 'terminal', 'app']),
    layer('demo', ['core', 'lib', 'config', 'bus', 'app']),
    layer('cli', ['core', 'lib', 'config', 'bus', 'terminal', 'daemon', 'app', 'ui']),
    // The two buses share the agents' folder protocol (bus/folders/: what agents write, how a daemon reads and
    // rejects it), never each other's insides; the shared module knows neither.
    ...[
      ['files', 'postgres'],
      ['postgres', 'files'],
      ['folders', 'files|postgres'],
    ].map(([from, to]) => ({
      name: `bus-${from}-never-imports-${to.replace('|', '-or-')}`,
      severity: 'error',
      comment: `bus/${from}/ may not import bus/${to}/ (shared: bus/folders/ and the interfaces in bus/*.ts)`,
      from: { path: `^src/bus/${from}/` },
      to: { path: `^src/bus/(${to})/` },
    })),
    // app/'s rooms: the commands' rooms (up/, status/, mcp/) build on app/*.ts, which uses none of them; the
    // machine's daemon (machine/) brings agents back with up/'s code, and never uses status/ or mcp/.
    {
      name: 'app-shared-files-point-down',
      severity: 'error',
      comment: 'app/*.ts may not import app/up/, app/status/ or app/mcp/',
      from: { path: '^src/app/[^/]+$' },
      to: { path: '^src/app/(up|status|mcp)/' },
    },
    {
      name: 'app-machine-never-imports-status-or-mcp',
      severity: 'error',
      comment: 'app/machine/ may not import app/status/ or app/mcp/',
      from: { path: '^src/app/machine/' },
      to: { path: '^src/app/(status|mcp)/' },
    },
    {
      name: 'bus-implementations-are-private',
      severity: 'error',
      comment: 'only bus/open.ts picks a bus; everything else sees the interfaces in bus/*.ts',
      from: { path: '^src/', pathNot: ['^src/bus/'] },
      to: { path: '^src/bus/[^/]+/' },
    },
  ],
  options: {
    // Type-only imports count too. TypeScript 7 (the project's tsc) has no compiler API, so the checker
    // runs from tools/depcruise/ with TypeScript 6 of its own.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
