/**
 * `baton mcp` (issue 16) through the official SDK's own client, over stdio as an agent CLI runs it: the
 * tools it lists, a reply posted with the post tool and delivered by the daemon, status and the
 * transcript, and a misuse answered as a tool error (never a crash of the server).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
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
    expect(readRecorder(logB).pastes.some((t) => t.includes('sent through MCP'))).toBe(true);

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
