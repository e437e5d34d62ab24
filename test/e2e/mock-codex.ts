/**
 * A local stand-in for the OpenAI Responses API, on loopback, for driving the real Codex CLI TUI in tests
 * (its API as measured with the real client; Codex 0.169.0 with `wire_api = "responses"` and `base_url = mock.url`).
 * Same shape as ./mock-anthropic.ts: one instance per agent, so its request log is that agent's.
 *
 * - `POST /v1/responses` (`stream: true`) answers with the SSE sequence response.created,
 *   response.output_item.added, response.content_part.added, response.output_text.delta ×n,
 *   response.output_text.done, response.content_part.done, response.output_item.done, response.completed
 *   (with usage); or, without `stream`, one JSON response. Anything else: a 404 in the API's error shape.
 *   Every request is logged.
 *   - The tool-less title request Codex makes for each new prompt ("Generate a concise, single-line task
 *     title…", which quotes the prompt, baton headers and all): a short title, as the JSON it asks for.
 *   - A user turn (the user `message` items since the model's last output item; developer messages and
 *     Codex's `<environment_context>`-style context set aside; several messages steered in while busy
 *     arrive as several items, each parsed on its own) that carries baton messages (`[baton] msg_0003 from
 *     X` header lines): for each one `onMessage` decides — `{ post: content }` answers with a
 *     `function_call` of Codex's `exec_command` tool whose `cmd` replies through `baton post` (Codex runs it
 *     and sends a `function_call_output` back; `login: false`, as a login shell would reset PATH from
 *     /etc/profile and lose baton's bin folder); `{ run: command }` an `exec_command` of it asking to run outside the sandbox (so Codex
 *     asks a person); `{ say: text }` (or nothing) answers with text.
 *   - A request whose newest items are only `function_call_output`s: a short text, "done", ending the turn.
 * - `hold` lets a test keep one answer open (response.created sent, the model "thinking") while it does
 *   something to the busy agent. A message steered in (Enter while busy) makes Codex drop the open request
 *   and send it again with both messages: `received()` counts each message once, by its place in `input`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MockServer, pieces, toolNames, type MockOptions as BaseOptions } from './mock-server.js';
import { parseDelivered, postCommand, type Delivered } from './mock-anthropic.js';

export type { Delivered } from './mock-anthropic.js';

interface ToolOutput {
  call_id: string;
  text: string;
}

export interface LoggedRequest {
  seq: number;
  /** Date.now() when the request arrived, and when its answer was complete. */
  at: number;
  answeredAt?: number;
  method: string;
  url: string;
  /** title (no tools), turn (user messages since the model's last output), tool (only tool outputs), other. */
  kind: 'title' | 'turn' | 'tool' | 'other';
  /** Index in `input` of the first item after the model's last output item (a retry has the same index). */
  index?: number;
  /** The typed user texts since the model's last output (context messages set aside), one per message. */
  texts?: string[];
  /** `[index in input, text]` of each of `texts`, to count a message once across retries and re-sends. */
  items?: [number, string][];
  toolOutputs?: ToolOutput[];
  /** The baton messages found in `texts`. */
  delivered?: Delivered[];
  /** What the mock answered: the text, or the `cmd` of its exec_command calls. */
  answer?: { text?: string; commands?: string[] };
  /** The names of the tools the client offered the model (its own, and its MCP servers'). */
  tools?: string[];
  /** The request body, for debugging (instructions and tool list dropped: they are large). */
  body?: unknown;
}

export type MockOptions = BaseOptions<LoggedRequest>;

interface Part {
  type: string;
  text?: string;
}
interface Item {
  type?: string;
  role?: string;
  content?: string | Part[];
  call_id?: string;
  output?: unknown;
}
interface Body {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  input?: string | Item[];
  instructions?: string;
}

/** Context Codex sends as user messages that nobody typed. */
const CONTEXT =
  /^\s*(<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>|# AGENTS\.md instructions)/;
const TITLE = 'Generate a concise, single-line task title';

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p: Part) => (typeof p.text === 'string' ? p.text : `[${p.type}]`)).join('\n');
  return '';
}

/** Items the model wrote: a turn starts after the last one. */
const isOutput = (i: Item) =>
  i.role === 'assistant' || (i.type !== undefined && i.type !== 'message' && !i.type.endsWith('_output'));

type Out = { type: 'text'; text: string } | { type: 'call'; call_id: string; cmd: string; escalate?: boolean };

export class MockResponses extends MockServer<LoggedRequest> {
  private calls = 0;

  private constructor(opts: MockOptions) {
    super(opts, (message) => ({ error: { type: 'server_error', message } }));
  }

  static async start(opts: MockOptions): Promise<MockResponses> {
    const m = new MockResponses(opts);
    await m.listen();
    return m;
  }

  /** The `base_url` for the provider in Codex's config.toml. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** The requests that carried a user turn (retries counted once), in order. */
  turns(): LoggedRequest[] {
    return this.turnsBy((r) => [r.index, r.texts]);
  }

  /** Every baton message the model received, in order, each once (a message re-sent in a retry or after a steer counts once). */
  override received(): Delivered[] {
    const seen = new Set<string>();
    const out: Delivered[] = [];
    for (const r of this.turns()) {
      for (const [index, text] of r.items ?? []) {
        if (seen.has(`${index}\n${text}`)) continue;
        seen.add(`${index}\n${text}`);
        out.push(...parseDelivered(text));
      }
    }
    return out;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { raw, url, path, entry } = await this.take(req);
    const fail = (status: number, type: string, message: string) => {
      this.opts.log?.(`${this.opts.name}: #${entry.seq} ${req.method} ${url} → ${status}`);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type, code: type, message: `mock: ${message}`, param: null } }));
      entry.answeredAt = Date.now();
    };
    if (req.method !== 'POST' || path !== '/v1/responses') return fail(404, 'not_found', `no ${req.method} ${path}`);
    let body: Body;
    try {
      body = JSON.parse(raw) as Body;
    } catch {
      return fail(400, 'invalid_request_error', 'body is not JSON');
    }
    const input: Item[] =
      typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : (body.input ?? []);
    let start = input.length;
    while (start > 0 && !isOutput(input[start - 1]!)) start--;
    const fresh = input.slice(start);
    entry.body = { ...body, instructions: body.instructions?.slice(0, 80), tools: body.tools?.length };
    entry.tools = toolNames(body.tools);
    entry.index = start;
    const items: [number, string][] = [];
    fresh.forEach((i, k) => {
      const text = partsText(i.content);
      if ((i.type ?? 'message') === 'message' && i.role === 'user' && !CONTEXT.test(text))
        items.push([start + k, text]);
    });
    const toolOutputs = fresh
      .filter((i) => i.type?.endsWith('_output'))
      .map((i) => ({ call_id: i.call_id ?? '', text: partsText(i.output) }));
    let out: Out[];
    if (!body.tools?.length && raw.includes(TITLE)) {
      entry.kind = 'title';
      // Codex 0.169 asks for JSON of the schema {title} (text.format json_schema).
      out = [
        {
          type: 'text',
          text: raw.includes('"json_schema"') ? JSON.stringify({ title: 'Baton conversation' }) : 'Baton conversation',
        },
      ];
    } else if (items.length) {
      entry.kind = 'turn';
      entry.items = items;
      entry.texts = items.map(([, t]) => t);
      entry.toolOutputs = toolOutputs;
      entry.delivered = entry.texts.flatMap((t) => parseDelivered(t));
      const commands: Array<{ cmd: string; escalate?: boolean }> = [];
      const said: string[] = [];
      const actions = entry.delivered.length
        ? entry.delivered.map((d) => this.opts.onMessage(d, entry))
        : entry.texts.map((t) => this.opts.onText?.(t, entry));
      for (const a of actions) {
        if (a && 'post' in a) commands.push({ cmd: postCommand(a.post) });
        else if (a && 'run' in a) commands.push({ cmd: a.run, escalate: true });
        else if (a && 'say' in a) said.push(a.say);
      }
      if (commands.length)
        out = commands.map((c) => ({ type: 'call', call_id: `call_mock_${this.opts.name}_${++this.calls}`, ...c }));
      else out = [{ type: 'text', text: said.length ? said.join('\n') : toolOutputs.length ? 'done' : 'Noted.' }];
    } else if (toolOutputs.length) {
      entry.kind = 'tool';
      entry.toolOutputs = toolOutputs;
      out = [{ type: 'text', text: 'done' }];
    } else {
      return fail(404, 'not_found', 'a request with neither a user turn nor tool output');
    }
    const commands = out.flatMap((o) => (o.type === 'call' ? [o.cmd] : []));
    entry.answer = commands.length
      ? { commands }
      : { text: out.map((o) => (o.type === 'text' ? o.text : '')).join('') };
    this.opts.log?.(
      `${this.opts.name}: #${entry.seq} ${entry.kind} [${start}]` +
        `${entry.delivered?.length ? ` got ${entry.delivered.map((d) => d.id).join(', ')}` : ''}${toolOutputs.length ? ` +${toolOutputs.length} tool output(s)` : ''}` +
        ` → ${commands.length ? `exec_command (${commands.map((c) => c.slice(0, 60)).join(' | ')})` : JSON.stringify(entry.answer.text)}`,
    );
    await this.answer(res, body, out, entry);
    entry.answeredAt = Date.now();
  }

  private async answer(res: ServerResponse, body: Body, out: Out[], entry: LoggedRequest): Promise<void> {
    const id = `resp_mock_${this.opts.name}_${entry.seq}`;
    const model = body.model ?? 'gpt-mock';
    const items = out.map((o, n) =>
      o.type === 'text'
        ? {
            id: `msg_${id}_${n}`,
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: o.text, annotations: [] }],
          }
        : {
            id: `fc_${id}_${n}`,
            type: 'function_call',
            status: 'completed',
            call_id: o.call_id,
            name: 'exec_command',
            // `run`: outside the sandbox, the one call Codex's default mode asks a person about (measured).
            arguments: JSON.stringify({
              cmd: o.cmd,
              login: false,
              ...(o.escalate
                ? { sandbox_permissions: 'require_escalated', justification: 'Run it outside the sandbox' }
                : {}),
            }),
          },
    );
    const u = this.opts.usage?.(entry.seq);
    const usage = u
      ? {
          input_tokens: u.input,
          input_tokens_details: { cached_tokens: u.cached },
          output_tokens: u.output,
          output_tokens_details: { reasoning_tokens: u.thoughts },
          total_tokens: u.input + u.output,
        }
      : {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 10,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 110,
        };
    const response = (status: string, output: unknown[]) => ({
      id,
      object: 'response',
      created_at: Math.floor(entry.at / 1000),
      status,
      model,
      output,
      ...(status === 'completed' ? { usage } : {}),
    });
    if (!body.stream) {
      await this.opts.hold?.(entry);
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${id}` });
      res.end(JSON.stringify(response('completed', items)));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': `req_${id}`,
    });
    let sequence_number = 0;
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...data })}\n\n`);
    send('response.created', { response: response('in_progress', []) });
    await this.opts.hold?.(entry);
    items.forEach((item, output_index) => {
      if (item.type === 'message') {
        const text = (out[output_index] as { text: string }).text;
        const at = { item_id: item.id, output_index, content_index: 0 };
        send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        send('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
        for (const delta of pieces(text, 40)) send('response.output_text.delta', { ...at, delta });
        send('response.output_text.done', { ...at, text });
        send('response.content_part.done', { ...at, part: { type: 'output_text', text, annotations: [] } });
      } else {
        send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        send('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments });
      }
      send('response.output_item.done', { output_index, item });
    });
    send('response.completed', { response: response('completed', items) });
    res.end();
  }
}
