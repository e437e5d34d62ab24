/**
 * `baton mcp` through the official SDK's own client, over stdio as an agent CLI runs it: the
 * tools it lists, a reply posted with the post tool and delivered by the daemon, status and the
 * transcript, and a misuse answered as a tool error (never a crash of the server). Then raw JSON-RPC lines,
 * as a hostile or broken client writes them: a request too large (the server used to exit 0 in silence,
 * and the agent lost its tools), lines that are not JSON-RPC, and tools called before the handshake.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
let client: Client | undefined;
let raw: RawClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  raw?.proc.kill('SIGKILL');
  raw = undefined;
  await p?.stop();
  p = undefined;
});

const textOf = (r: unknown) =>
  ((r as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');

describe('baton mcp', () => {
  it('lists post, status and transcript; a reply posted through the tool is delivered; a misuse is a tool error', async () => {
    p = new Project({
      agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
      directions: undefined,
      delivery: { enter_delay_ms: 0 },
    });
    const logB = await p.recorder('b');
    await p.startDaemon();
    const env = Object.fromEntries(
      Object.entries(p.env).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--as', 'a', '--config', p.configFile],
        env,
        stderr: 'pipe',
      }),
    );

    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['post', 'status', 'transcript']);
    const posted = await client.callTool({
      name: 'post',
      arguments: { content: 'sent through MCP', subject: 'hello' },
    });
    expect(posted.isError).toBeFalsy();
    expect(textOf(posted)).toContain('posted to b');
    await waitFor('delivered to b', () => p!.archive()[0]?.delivered_at, 15_000);
    expect(p.archive()[0]).toMatchObject({
      id: 'msg_0001',
      sender: 'a',
      receiver: 'b',
      content: 'sent through MCP',
      subject: 'hello',
    });
    // Stamped once typed; the stand-in agent logs what it read a moment later.
    await waitFor('b read it', () => readRecorder(logB).pastes.some((t) => t.includes('sent through MCP')), 15_000);

    expect(textOf(await client.callTool({ name: 'transcript', arguments: { last: 5 } }))).toContain('sent through MCP');
    expect(textOf(await client.callTool({ name: 'status', arguments: {} }))).toMatch(/b\b/);
    const wrong = await client.callTool({ name: 'post', arguments: { content: 'to nobody', to: 'nobody' } });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toContain('not posted: a has no folder for messages to nobody');
    // Still serving after the error.
    expect((await client.listTools()).tools).toHaveLength(3);
  }, 60_000);

  it('post refuses what the daemon would reject (over inbox.max_bytes) instead of saying "posted"', async () => {
    p = new Project({ inbox: { max_bytes: 4096, settle_ms: 300 } });
    const env = Object.fromEntries(
      Object.entries(p.env).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    client = new Client({ name: 'baton-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--as', 'claude1', '--config', p.configFile],
        env,
        stderr: 'pipe',
      }),
    );
    const big = await client.callTool({ name: 'post', arguments: { content: 'x'.repeat(5000) } });
    expect(big.isError).toBe(true);
    expect(textOf(big)).toMatch(/^not posted: \d+ bytes is over inbox\.max_bytes \(4096\)/);
    expect(p.ls('c1_to_c2')).toEqual([]);
  }, 30_000);
});

/** `baton mcp` spoken to in raw JSON-RPC lines: what it answers, and whether it still runs. */
class RawClient {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly answers: Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }> = [];
  private rest = '';

  constructor(project: Project) {
    const env = Object.fromEntries(
      Object.entries({ ...process.env, ...project.env }).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    this.proc = spawn(process.execPath, [CLI, 'mcp', '--as', 'a', '--config', project.configFile], { env });
    this.proc.stdin.on('error', () => {}); // a server that died: the test says so, not an EPIPE
    this.proc.stdout.on('data', (c: Buffer) => {
      const lines = (this.rest + c.toString('utf8')).split('\n');
      this.rest = lines.pop()!;
      for (const l of lines) this.answers.push(JSON.parse(l));
    });
  }

  send(line: string | object): void {
    this.proc.stdin.write(`${typeof line === 'string' ? line : JSON.stringify({ jsonrpc: '2.0', ...line })}\n`);
  }

  /** The answer to request `id` (the first, in order, for null). */
  answer(id: unknown, after = 0) {
    return waitFor(
      `the answer to ${JSON.stringify(id)}`,
      () => this.answers.slice(after).find((a) => a.id === id),
      15_000,
    );
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  async handshake(): Promise<void> {
    this.send({ id: 'init', method: 'initialize', params: INIT });
    expect((await this.answer('init')).result).toBeTruthy();
    this.send({ method: 'notifications/initialized' });
  }
}

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } };
const mcpProject = () =>
  new Project({
    agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
    directions: undefined,
  });
/** Every message file waiting in a direction folder. */
const posted = (project: Project) =>
  (existsSync(project.messages) ? readdirSync(project.messages, { withFileTypes: true }) : [])
    .filter((d) => d.isDirectory() && /_to_/.test(d.name))
    .flatMap((d) => project.ls(d.name).filter((n) => n.endsWith('.json')));

describe('baton mcp, spoken to in raw JSON-RPC', () => {
  it('a request too large is answered with an error (its id, wherever it is; null when it has none), and the server stays up', async () => {
    p = mcpProject();
    raw = new RawClient(p);
    await raw.handshake();
    const big = 'x'.repeat(11 * 1024 * 1024); // over the 10 MB the SDK's own transport dies at
    const call = (content: string) => ({ name: 'post', arguments: { content } });
    raw.send({ id: 2, method: 'tools/call', params: call(big) });
    const first = await raw.answer(2);
    expect(first.error?.code).toBe(-32600);
    expect(first.error?.message).toMatch(/^request too large: \d+ bytes, over the limit of 8388608; it was not read$/);
    raw.send(`{"jsonrpc":"2.0","method":"tools/call","params":${JSON.stringify(call(big))},"id":"after-params"}`);
    expect((await raw.answer('after-params')).error?.code).toBe(-32600);
    raw.send(big); // not even JSON
    expect((await raw.answer(null)).error?.message).toMatch(/^request too large/);
    // Still serving, and nothing of those was posted.
    raw.send({ id: 3, method: 'tools/list' });
    expect(((await raw.answer(3)).result as { tools: unknown[] }).tools).toHaveLength(3);
    expect(posted(p)).toEqual([]);
    // Lines that are not JSON-RPC are answered too, never dropped in silence.
    const before = raw.answers.length;
    raw.send('{"this is": not json');
    expect((await raw.answer(null, before)).error?.code).toBe(-32700);
    raw.send({ id: 4, method: 42 });
    expect((await raw.answer(4)).error?.code).toBe(-32600);
    raw.send({ id: 5, method: 'tools/call', params: call('small enough') });
    expect(JSON.stringify((await raw.answer(5)).result)).toContain('posted to b');
    expect(posted(p)).toHaveLength(1);
    expect(raw.alive).toBe(true);
  }, 60_000);

  it('tools are refused before the handshake (initialize, then notifications/initialized); ping is not', async () => {
    p = mcpProject();
    raw = new RawClient(p);
    raw.send({ id: 1, method: 'tools/call', params: { name: 'post', arguments: { content: 'before any handshake' } } });
    const refused = await raw.answer(1);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.message).toContain('not initialized');
    raw.send({ id: 2, method: 'tools/list' });
    expect((await raw.answer(2)).error?.code).toBe(-32002);
    raw.send({ id: 3, method: 'ping' });
    expect((await raw.answer(3)).result).toEqual({});
    raw.send({ id: 4, method: 'initialize', params: INIT });
    expect((await raw.answer(4)).result).toBeTruthy();
    raw.send({ id: 5, method: 'tools/call', params: { name: 'post', arguments: { content: 'between the two' } } });
    expect((await raw.answer(5)).error?.code).toBe(-32002); // initialized not sent yet
    expect(posted(p)).toEqual([]);
    raw.send({ method: 'notifications/initialized' });
    raw.send({ id: 6, method: 'tools/call', params: { name: 'post', arguments: { content: 'after the handshake' } } });
    expect(JSON.stringify((await raw.answer(6)).result)).toContain('posted to b');
    expect(posted(p)).toHaveLength(1);
    expect(raw.alive).toBe(true);
  }, 60_000);

  it('stdin closed with calls in progress: each is answered before the server exits 0', async () => {
    p = mcpProject();
    raw = new RawClient(p);
    await raw.handshake();
    const exited = new Promise<number | null>((done) => raw!.proc.on('exit', (code) => done(code)));
    // The client writes its calls and closes at once, as `printf … | baton mcp` does; the second has no line
    // feed after it. The post was stored, but its reply was dropped: the SDK aborts calls in progress on close.
    raw.send({ id: 7, method: 'tools/call', params: { name: 'post', arguments: { content: 'then stdin closes' } } });
    raw.send({ id: 8, method: 'tools/call', params: { name: 'status', arguments: {} } });
    raw.proc.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(await exited).toBe(0);
    expect(JSON.stringify((await raw.answer(7)).result)).toContain('posted to b');
    expect(JSON.stringify((await raw.answer(8)).result)).toContain('turn');
    expect((await raw.answer(9)).result).toEqual({});
    expect(posted(p)).toHaveLength(1);
  }, 60_000);
});
