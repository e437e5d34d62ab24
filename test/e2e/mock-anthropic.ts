/**
 * A local stand-in for the Anthropic Messages API, on loopback, for driving the real Claude Code TUI in
 * tests (its API as measured with the real client). One instance per agent, so its request log is that agent's.
 *
 * - `HEAD` anything: 200. `POST /v1/messages/count_tokens`: a token count. Anything else unknown: a 404
 *   in the API's error shape. Every request is logged.
 * - `POST /v1/messages` (Claude Code adds `?beta=true`; `stream: true`) answers with the SSE sequence
 *   message_start, ping, content_block_start, content_block_delta ×n, content_block_stop, message_delta,
 *   message_stop (or, without `stream`, one JSON message).
 *   - A request without tools (Claude Code's title request before each new prompt, and the like): a short
 *     text.
 *   - A user turn (what came since the model last spoke: the typed text, after a `<system-reminder>`
 *     block; tool results; a message typed while a tool ran, which 2.1.197 passes on as a `system` note)
 *     that carries baton messages (`[baton] msg_0003 from X` header lines): for each one `onMessage`
 *     decides — `{ post: content }` answers with a `tool_use` of the `Bash` tool whose command replies
 *     through `baton post` (Claude Code runs it and sends the `tool_result` back); `{ run: command }` a
 *     `Bash` call of that command; `{ say: text }` (or nothing) answers with text.
 *   - A turn carrying only tool results (and no baton message to answer): a short `end_turn` text.
 * - `hold` lets a test keep one answer open (the stream started, the model "thinking") while it does
 *   something to the busy agent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MockServer, pieces, type MockOptions as BaseOptions } from './mock-server.js';

/** One baton message found in a user turn: its ID, sender, and its whole text from the header on. */
export interface Delivered {
  id: string;
  from: string;
  text: string;
}

/**
 * What the model does with a baton message: reply through `baton post`, say a text, or `run` a command with
 * its client's shell tool — one that asks a person's permission when the client is not in bypass mode
 * (Codex: with `sandbox_permissions: "require_escalated"`, the only way its default mode asks).
 */
export type Action = { post: string } | { say: string } | { run: string } | { ask: Question } | undefined;

/** `ask`: one multiple-choice question to the user, by the client's own tool (Claude Code AskUserQuestion, Gemini CLI ask_user). */
interface Question {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
}

interface ToolResult {
  tool_use_id: string;
  text: string;
  is_error: boolean;
}

export interface LoggedRequest {
  seq: number;
  /** Date.now() when the request arrived, and when its answer was complete. */
  at: number;
  answeredAt?: number;
  method: string;
  url: string;
  /** head, title (no tools), turn (with tools; user messages since the model's last message), other. */
  kind: 'head' | 'title' | 'turn' | 'count_tokens' | 'other';
  /** Index in `messages` of the first message after the model's last one (a retry has the same index and text). */
  index?: number;
  /**
   * The text blocks of the user messages since the model's last message, as sent (the first one is often
   * a <system-reminder>), and the text of messages typed while a tool ran (which Claude Code passes on
   * as a `system` note after the tool result), unwrapped.
   */
  texts?: string[];
  /** Other `system` messages since the model's last message (e.g. Claude Code's list of agent types). */
  system?: string[];
  toolResults?: ToolResult[];
  /** The baton messages found in the text the user typed (system reminders set aside). */
  delivered?: Delivered[];
  /** What the mock answered: the text, or the commands of its Bash tool calls. */
  answer?: { text?: string; commands?: string[]; stop_reason: string };
  /** The request body, for debugging (system prompt and tool list dropped: they are large). */
  body?: unknown;
}

export type MockOptions = BaseOptions<LoggedRequest>;

const HEADER = /^\[baton\] ((?:msg|user)_\d+) from (\S+)/gm;
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
/** How Claude Code passes on a message typed while a tool call ran: 2.1.197's wording, then 2.1.332's. */
const QUEUED = [
  /^The user sent a new message while you were working:\n([\s\S]*?)\n\nIMPORTANT: After completing your current task, you MUST address the user's message above\. Do not ignore it\.\s*$/,
  /^The user sent a new message while you were working:\n([\s\S]*?)\n\nThis is how Claude Code surfaces messages the user sends mid-turn\b[\s\S]*$/,
];

/** Text without Claude Code's <system-reminder> blocks and <pasted_content> wrappers. */
function typedText(text: string): string {
  return text
    .replace(REMINDER, '')
    .replace(/<pasted_content\b[^>]*>/g, '')
    .replace(/<\/pasted_content\b[^>]*>/g, '');
}

/** The baton messages in a text: each from its header line up to the next header (or the end), trimmed. */
export function parseDelivered(text: string): Delivered[] {
  const heads = [...text.matchAll(HEADER)];
  return heads.map((m, i) => ({
    id: m[1]!,
    from: m[2]!,
    text: text.slice(m.index, heads[i + 1]?.index ?? text.length).trim(),
  }));
}

/** Quote for a POSIX shell: one word, nothing expanded. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

/**
 * The shell command that posts `content` through baton, as an agent would write it: a quoted argument
 * for one printable line; a quoted heredoc for printable lines that end in a newline; and anything else
 * (control bytes, a CR) through base64, so every byte reaches `baton post -` exactly.
 */
export function postCommand(content: string): string {
  if (!CONTROL.test(content) && !content.includes('\n')) return `baton post -- ${shq(content)}`;
  if (!CONTROL.test(content) && content.endsWith('\n') && !`\n${content}`.includes('\nBATON_EOF\n')) {
    return `baton post - <<'BATON_EOF'\n${content}BATON_EOF`;
  }
  return `printf '%s' ${shq(Buffer.from(content, 'utf8').toString('base64'))} | base64 -d | baton post -`;
}

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  tool_use_id?: string;
  is_error?: boolean;
}
interface Message {
  role: string;
  content: string | Block[];
}
interface Body {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  messages?: Message[];
  system?: unknown;
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((b: Block) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
  return '';
}

type Out =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The user turn's pieces, into `entry`: typed texts, tool results, and system notes. */
function readTurn(entry: LoggedRequest, fresh: Message[]): void {
  entry.texts = [];
  entry.toolResults = [];
  entry.system = [];
  for (const m of fresh) {
    if (m.role === 'user') {
      const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      for (const b of blocks) {
        // 2.1.332 passes a message typed while a tool ran as a text block after the tool result.
        if (b.type === 'text')
          entry.texts.push(((t) => QUEUED.map((re) => re.exec(t)).find(Boolean)?.[1] ?? t)(b.text ?? ''));
        else if (b.type === 'tool_result')
          entry.toolResults.push({
            tool_use_id: b.tool_use_id ?? '',
            text: blockText(b.content),
            is_error: b.is_error === true,
          });
      }
    } else if (m.role === 'system') {
      // Text typed while a tool ran rides along after the tool result as a system note (2.1.197).
      const text = blockText(m.content);
      const queued = QUEUED.map((re) => re.exec(text)).find(Boolean);
      if (queued) entry.texts.push(queued[1]!);
      else entry.system.push(text);
    }
  }
}

/** One line about a request and its answer, for a test's diagnostics. */
function logLine(entry: LoggedRequest, stop: string): string {
  const index = entry.index !== undefined ? ` [${entry.index}]` : '';
  const got = entry.delivered?.length ? ` got ${entry.delivered.map((d) => d.id).join(', ')}` : '';
  const results = entry.toolResults?.length ? ` +${entry.toolResults.length} tool result(s)` : '';
  const commands = entry.answer?.commands;
  const ran = commands ? ` (${commands.map((c) => c.slice(0, 60)).join(' | ')})` : '';
  return `#${entry.seq} ${entry.kind}${index}${got}${results} → ${stop}${ran}`;
}

export class MockAnthropic extends MockServer<LoggedRequest> {
  private tools = 0;

  private constructor(opts: MockOptions) {
    super(opts, (message) => ({ type: 'error', error: { type: 'api_error', message } }));
  }

  static async start(opts: MockOptions): Promise<MockAnthropic> {
    const m = new MockAnthropic(opts);
    await m.listen();
    return m;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The user turns this agent's model received (retries counted once), in order. */
  turns(): LoggedRequest[] {
    return this.turnsBy((r) => [r.index, r.texts, r.system]);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { raw, url, path, entry } = await this.take(req);

    if (req.method === 'HEAD') {
      entry.kind = 'head';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      entry.answeredAt = Date.now();
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      entry.kind = 'count_tokens';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      entry.answeredAt = Date.now();
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      this.opts.log?.(`${this.opts.name}: ${req.method} ${url} → 404`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'not_found_error', message: `mock: no ${req.method} ${path}` },
        }),
      );
      entry.answeredAt = Date.now();
      return;
    }

    let body: Body;
    try {
      body = JSON.parse(raw) as Body;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'mock: body is not JSON' } }),
      );
      return;
    }
    const { out, stop } = this.reply(body, entry);
    entry.answer = {
      stop_reason: stop,
      ...(out.some((o) => o.type === 'text')
        ? { text: out.map((o) => (o.type === 'text' ? o.text : '')).join('') }
        : {}),
      ...(stop === 'tool_use'
        ? { commands: out.map((o) => (o.type === 'tool_use' ? String(o.input.command) : '')) }
        : {}),
    };
    this.opts.log?.(`${this.opts.name}: ${logLine(entry, stop)}`);
    await this.answer(res, { body, out, stop, entry });
    entry.answeredAt = Date.now();
  }

  /** What the model answers to a request: a title, a user turn's answer, or a plain acknowledgement. */
  private reply(body: Body, entry: LoggedRequest): { out: Out[]; stop: string } {
    const messages = body.messages ?? [];
    // What is new since the model last spoke: the messages after the last assistant message.
    let start = messages.length;
    while (start > 0 && messages[start - 1]!.role !== 'assistant') start--;
    const fresh = messages.slice(start);
    entry.body = { ...body, system: undefined, tools: body.tools?.length };
    if (!body.tools?.length) {
      entry.kind = 'title';
      return { out: [{ type: 'text', text: 'Baton conversation' }], stop: 'end_turn' };
    }
    if (!fresh.some((m) => m.role === 'user')) return { out: [{ type: 'text', text: 'OK.' }], stop: 'end_turn' };
    entry.kind = 'turn';
    entry.index = start;
    readTurn(entry, fresh);
    // Each block on its own: several messages queued while busy arrive as several blocks.
    entry.delivered = [...entry.texts!, ...entry.system!].flatMap((t) => parseDelivered(typedText(t)));
    return this.answerTurn(entry);
  }

  /** A user turn's answer: a Bash call per baton message to reply to, else text. */
  private answerTurn(entry: LoggedRequest): { out: Out[]; stop: string } {
    const calls: Array<{ command: string; description: string }> = [];
    const said: string[] = [];
    const actions = entry.delivered!.length
      ? entry.delivered!.map((d) => this.opts.onMessage(d, entry))
      : [...entry.texts!, ...entry.system!].map((t) => this.opts.onText?.(typedText(t), entry));
    for (const a of actions) {
      if (a && 'post' in a) calls.push({ command: postCommand(a.post), description: 'Reply through baton' });
      else if (a && 'run' in a) calls.push({ command: a.run, description: 'Run it' });
      else if (a && 'ask' in a) {
        const questions = [{ ...a.ask, multiSelect: false }];
        const id = `toolu_mock_${this.opts.name}_${++this.tools}`;
        return { out: [{ type: 'tool_use', id, name: 'AskUserQuestion', input: { questions } }], stop: 'tool_use' };
      } else if (a && 'say' in a) said.push(a.say);
    }
    if (calls.length) {
      const out: Out[] = calls.map(({ command, description }, i) => ({
        type: 'tool_use',
        id: `toolu_mock_${this.opts.name}_${++this.tools}`,
        name: 'Bash',
        input: { command, description: `${description}${calls.length > 1 ? ` (${i + 1})` : ''}` },
      }));
      return { out, stop: 'tool_use' };
    }
    if (said.length) return { out: [{ type: 'text', text: said.join('\n') }], stop: 'end_turn' };
    if (entry.toolResults!.length) {
      const text = entry.toolResults!.some((t) => t.is_error) ? 'The reply command failed.' : 'Replied through baton.';
      return { out: [{ type: 'text', text }], stop: 'end_turn' };
    }
    return { out: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' };
  }

  private async answer(
    res: ServerResponse,
    { body, out, stop, entry }: { body: Body; out: Out[]; stop: string; entry: LoggedRequest },
  ): Promise<void> {
    const id = `msg_mock_${this.opts.name}_${entry.seq}`;
    const model = body.model ?? 'claude-mock';
    const u = this.opts.usage?.(entry.seq);
    const usage = u
      ? {
          input_tokens: u.input,
          output_tokens: 1,
          cache_creation_input_tokens: u.cacheWrite,
          cache_read_input_tokens: u.cached,
        }
      : { input_tokens: 100, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const outputTokens = u?.output ?? 10;
    if (!body.stream) {
      await this.opts.hold?.(entry);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: out,
          stop_reason: stop,
          stop_sequence: null,
          usage: { ...usage, output_tokens: outputTokens },
        }),
      );
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': `req_${id}`,
    });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
    send('ping', { type: 'ping' });
    await this.opts.hold?.(entry);
    out.forEach((o, index) => {
      if (o.type === 'text') {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const piece of pieces(o.text, 40))
          send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: piece },
          });
      } else {
        send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: o.id, name: o.name, input: {} },
        });
        for (const piece of pieces(JSON.stringify(o.input), 4096)) {
          send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          });
        }
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }
}
