/**
 * `baton mcp`: a stdio MCP server (the official SDK) through which an agent answers with a tool, so its CLI's
 * permission `mcp__baton__post` replaces `Bash(baton post:*)`. Tools: post, status, transcript; the agent is
 * `--as`, else $BATON_AGENT. Loaded only by `baton mcp` (the SDK is on no other command's path).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { explainBusError, openBus } from '../../bus/open.js';
import type { Config } from '../../config/config.js';
import { MESSAGE_TYPES } from '../../core/message.js';
import { GuardedStdioTransport } from './mcp-stdio.js';
import { VERSION } from '../paths.js';
import { composePost, postMessage } from '../post.js';
import { collectStatus, formatStatus } from '../status/status.js';
import { formatText, transcript } from '../transcript.js';

const text = (t: string, isError = false) => ({
  content: [{ type: 'text' as const, text: t }],
  ...(isError ? { isError: true } : {}),
});

/** A tool's answer, or the database's error as one line (never node-postgres's stack). */
async function oneLine(answer: () => Promise<ReturnType<typeof text>>): Promise<ReturnType<typeof text>> {
  try {
    return await answer();
  } catch (err) {
    const explained = explainBusError(err);
    if (explained) return text(explained, true);
    throw err;
  }
}

function mcpServer(config: Config, agent: string | undefined): McpServer {
  const server = new McpServer({ name: 'baton', version: VERSION });
  const bus = openBus(config);
  server.registerTool(
    'post',
    {
      description:
        `Send your reply in the baton conversation (${config.order.join(', ')}): one message per turn, ` +
        'then stop and wait. Your message goes to the agent the turn passes to ' +
        '(give "to" when you may write to several).',
      inputSchema: {
        content: z.string().min(1).describe('the message text'),
        to: z.string().optional().describe('the receiver, when you may write to several agents'),
        type: z.enum(MESSAGE_TYPES).optional().describe('the kind of message (default "message")'),
        subject: z.string().optional(),
      },
    },
    async (args) => {
      try {
        // Checked as the daemon will check it (receiver, policy, size) before it is said to be posted; an
        // agent's own message goes into its folder, never needing the database (app/post.ts).
        const posted = await postMessage(
          config,
          composePost(config, { from: agent, text: args.content, to: args.to, type: args.type, subject: args.subject }),
        );
        if (posted.kind === 'refused') return text(`not posted: ${posted.reason} (nothing was written)`, true);
        if (posted.kind === 'uncertain') return text(posted.reason, true);
        return text(
          `posted to ${posted.direction.to} (${posted.where}); baton delivers it when it is your turn. ` +
            'Stop now and wait for the next message.',
        );
      } catch (err) {
        return text(`not posted: ${explainBusError(err) ?? (err as Error).message}`, true);
      }
    },
  );
  server.registerTool(
    'status',
    { description: 'Whose turn it is in the baton conversation, what waits and why, and each agent.', inputSchema: {} },
    async () => oneLine(async () => text(formatStatus(await collectStatus(config, undefined, bus)))),
  );
  server.registerTool(
    'transcript',
    {
      description: 'The baton conversation so far, oldest first.',
      inputSchema: { last: z.number().int().positive().optional().describe('only the last N messages') },
    },
    async (args) =>
      oneLine(async () => {
        const all = await transcript(bus);
        const shown = args.last ? all.slice(-args.last) : all;
        return text(shown.length ? shown.map(formatText).join('\n\n') : 'no messages yet');
      }),
  );
  return server;
}

/** The longest request line read: a post of inbox.max_bytes, every byte escaped, with room to spare. */
const requestLimit = (config: Pick<Config, 'inbox'>): number =>
  Math.max(8 << 20, 2 * config.inbox.max_bytes + (1 << 20));

/** Serve on stdin/stdout until the client closes it. */
export async function serveMcp(config: Config, agent: string | undefined): Promise<void> {
  const server = mcpServer(config, agent);
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new GuardedStdioTransport(requestLimit(config)));
  await closed;
}
