/**
 * The package a person installs: `npm pack` → `npm i -g` into a temporary prefix → `baton` from
 * a folder outside the repository: --version, init, up --demo (on a private tmux server), status, ui
 * (the page and its script come from the package), down. It fails when the tarball lacks what running
 * needs (dist/, the demo agent, the dashboard's assets, the wrapper for panes, the PostgreSQL bus's
 * schema migrations).
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, ROOT, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const fetchStatus = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

/** The installed package finds every PostgreSQL schema migration it needs (only read: no database here). */
async function expectMigrationsIn(prefix: string, cwd: string): Promise<void> {
  const migrate = join(prefix, 'lib', 'node_modules', 'tmux-baton', 'dist', 'bus', 'postgres', 'migrate.js');
  const script = `const m = await import(${JSON.stringify(migrate)}); console.log((await m.migrations()).length, m.SCHEMA_VERSION);`;
  const read = await execa('node', ['--input-type=module', '-e', script], { cwd, reject: false });
  expect(read.exitCode, read.stderr).toBe(0);
  expect(read.stdout.trim()).toMatch(/^(\d+) \1$/);
}

describe('the installable package', () => {
  it('packs, installs with npm i -g, and runs init, up --demo, status, ui and down from any folder', async () => {
    p = new Project(); // its private tmux server and temp folder
    const packs = join(p.dir, 'packs');
    mkdirSync(packs);
    // dist/ is built already (the test command builds first); --ignore-scripts: no rebuild under other tests.
    const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], {
      cwd: ROOT,
      reject: false,
    });
    expect(pack.exitCode, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; name: string; files: Array<{ path: string }> }>;
    expect(info!.name).toBe('tmux-baton');
    const files = info!.files.map((f) => f.path);
    for (const f of [
      'dist/cli.js',
      'dist/demo/agent.js',
      'dist/web/app.js',
      'web/index.html',
      'web/style.css',
      'bin/baton',
      'LICENSE',
      'CHANGELOG.md',
      // The PostgreSQL bus's migrations, read from beside dist/bus/postgres/migrate.js (npm run build copies them).
      ...readdirSync(join(ROOT, 'src', 'bus', 'postgres', 'migrations')).map(
        (m) => `dist/bus/postgres/migrations/${m}`,
      ),
    ])
      expect(files, f).toContain(f);
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

    const prefix = join(p.dir, 'prefix');
    const install = await execa(
      'npm',
      ['i', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(packs, info!.filename)],
      { reject: false },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    const baton = join(prefix, 'bin', 'baton');
    const env = { ...p.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, BATON_DEMO_DELAY_MS: '200' };
    const run = (args: string[], cwd: string) => execa(baton, args, { cwd, env, reject: false });

    await expectMigrationsIn(prefix, p.dir);

    const version = await run(['--version'], p.dir);
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );

    const init = await run(['init', 'proj', '--kind', 'shell'], p.dir);
    expect(init.exitCode, init.stderr).toBe(0);
    const proj = join(p.dir, 'proj');
    const up = await run(['up', '--demo'], proj);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(up.stdout).toContain('baton is running');
    await waitFor(
      'two demo messages delivered',
      () => existsSync(join(proj, 'messages', 'archive', 'msg_0002.json')),
      30_000,
    );
    const status = JSON.parse((await run(['status', '--json'], proj)).stdout) as {
      daemon: { running: boolean };
      config: string;
    };
    expect(status.daemon.running).toBe(true);
    expect(status.config).toBe(join(proj, 'config.json'));

    const ui = execa(baton, ['ui', '--port', '0', '--json'], { cwd: proj, env, reject: false });
    let url = '';
    ui.stdout!.on('data', (c: Buffer) => (url ||= (JSON.parse(c.toString().split('\n')[0]!) as { url: string }).url));
    await waitFor('ui address', () => url, 15_000);
    const [page, script] = await Promise.all([fetchStatus(url), fetchStatus(new URL('/app.js', url).href)]);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>baton</title>');
    expect(script.status).toBe(200);
    ui.kill('SIGTERM');
    expect((await ui).exitCode).toBe(0);

    const down = await run(['down'], proj);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(
      (JSON.parse((await run(['status', '--json'], proj)).stdout) as { daemon: { running: boolean } }).daemon.running,
    ).toBe(false);
  }, 180_000);
});
