/**
 * A local stand-in for the Gemini API (generativelanguage v1beta), on loopback, for driving the real
 * Gemini CLI TUI in tests (its API as measured with the real client). Point the CLI at it with
 * `GOOGLE_GEMINI_BASE_URL=<url>` and `GEMINI_API_KEY=<anything>`. One instance per agent, so its request
 * log is that agent's. Same shape as ./mock-anthropic.ts.
 *
 * - `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (the chat): SSE events `data: {candidates:
 *   [{content:{role:"model",parts}, finishReason:"STOP" on the last}], usageMetadata}`.
 *   - A user turn (the user contents since the model last spoke: the typed text, after a
 *     `<session_context>` part on the first turn; several messages queued while busy arrive merged with
 *     "\n\n" in one text) that carries baton messages (`[baton] msg_0003 from X` header lines): for each
 *     one `onMessage` decides — `{ post: content }` answers with a `functionCall` of `run_shell_command`
 *     whose command replies through `baton post` (the CLI runs it and sends a `functionResponse` back);
 *     `{ run: command }` a `run_shell_command` of it; `{ ask: question }` an `ask_user` call; `{ say: text }` (or nothing) answers with text.
 *   - A turn carrying only `functionResponse` parts (and no baton message): a short text, ending the turn.
 * - `POST …:generateContent` (utility calls: the model router on `…flash-lite…` with a `responseJsonSchema`
 *   {complexity_reasoning, complexity_score}, the next-speaker check, …): JSON shaped by the schema, or a
 *   short text. `POST …:countTokens`: a token count. `HEAD`: 200. Anything else: a 404 in the API's error
 *   shape. Every request is logged.
 * - `hold` lets a test keep one chat answer open (the stream started, the model "thinking") while it does
 *   something to the busy agent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MockServer, pieces, toolNames, type MockOptions as BaseOptions, type MockUsage } from './mock-server.js';
import { parseDelivered, postCommand, type Delivered } from './mock-anthropic.js';

interface ToolResult {
  id: string;
  name: string;
  /** `response.output` as sent (Gemini wraps it: "<untrusted_context>\nOutput: …"), or the response as JSON. */
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
  /** The model named in the URL (e.g. gemini-2.5-flash-lite). */
  model?: string;
  /** head; router/json (a utility call with a response schema); util (one without); turn (the chat, with
   * a user turn); chat (the chat without one); count_tokens; other. */
  kind: 'head' | 'router' | 'json' | 'util' | 'turn' | 'chat' | 'count_tokens' | 'other';
  /** Index in `contents` of the first content after the model's last one (a retry has the same index and text). */
  index?: number;
  /** The text parts of the user contents since the model's last content, as sent (`<session_context>` left out). */
  texts?: string[];
  toolResults?: ToolResult[];
  /** The baton messages found in `texts`. */
  delivered?: Delivered[];
  /** What the mock answered: the text, or the commands of its run_shell_command calls. */
  answer?: { text?: string; commands?: string[]; finishReason: string };
  /** The names of the tools the client offered the model (its own, and its MCP servers'). */
  tools?: string[];
  /** The request body, for debugging (system instruction and tool list dropped: they are large). */
  body?: unknown;
}

export type MockOptions = BaseOptions<LoggedRequest>;

interface Part {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown> };
}
interface Content {
  role?: string;
  parts?: Part[];
}
interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface Body {
  contents?: Content[];
  systemInstruction?: unknown;
  tools?: unknown[];
  generationConfig?: { responseJsonSchema?: Schema; responseSchema?: Schema };
}

type Out = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

/** A value of the shape a JSON schema asks for: enums their first value (next speaker: "user"), numbers 0
 * (loop check: no confidence), but the router a low complexity score (→ flash). */
function fill(schema: Schema | undefined, key = ''): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  if (schema?.type?.toLowerCase() === 'array') return [];
  switch (String(schema?.type ?? 'object').toLowerCase()) {
    case 'string':
      return key.includes('reason') ? 'A simple request (mock).' : 'mock';
    case 'integer':
    case 'number':
      return key.includes('score') ? 10 : 0;
    case 'boolean':
      return false;
    default:
      return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([k, s]) => [k, fill(s, k)]));
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export class MockGemini extends MockServer<LoggedRequest> {
  private constructor(opts: MockOptions) {
    super(opts, (message) => ({ error: { code: 500, message, status: 'INTERNAL' } }));
  }

  static async start(opts: MockOptions): Promise<MockGemini> {
    const m = new MockGemini(opts);
    await m.listen();
    return m;
  }

  /** The value for GOOGLE_GEMINI_BASE_URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The user turns this agent's model received (retries counted once), in order. */
  turns(): LoggedRequest[] {
    return this.turnsBy((r) => [r.index, r.texts, r.toolResults?.map((t) => t.text)]);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { raw, url, path, entry } = await this.take(req);
    const done = () => void (entry.answeredAt = Date.now());

    if (req.method === 'HEAD') {
      entry.kind = 'head';
      res.writeHead(200).end();
      return done();
    }
    const m = /^\/v1(?:beta|alpha|)\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (req.method !== 'POST' || !m) {
      this.opts.log?.(`${this.opts.name}: ${req.method} ${url} → 404`);
      send(res, 404, { error: { code: 404, message: `mock: no ${req.method} ${path}`, status: 'NOT_FOUND' } });
      return done();
    }
    entry.model = decodeURIComponent(m[1]!);
    let body: Body;
    try {
      body = JSON.parse(raw) as Body;
    } catch {
      send(res, 400, { error: { code: 400, message: 'mock: body is not JSON', status: 'INVALID_ARGUMENT' } });
      return done();
    }
    if (m[2] === 'countTokens') {
      entry.kind = 'count_tokens';
      send(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
      return done();
    }
    entry.body = { ...body, systemInstruction: undefined, tools: body.tools?.length };
    entry.tools = toolNames(body.tools);
    const contents = body.contents ?? [];
    const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
    let out: Out[];
    if (m[2] === 'generateContent') {
      entry.kind = schema ? (schema.properties?.complexity_score ? 'router' : 'json') : 'util';
      out = [{ text: schema ? JSON.stringify(fill(schema)) : 'OK.' }];
    } else {
      // What is new since the model last spoke: the contents after the last model content.
      let start = contents.length;
      while (start > 0 && contents[start - 1]!.role !== 'model') start--;
      const fresh = contents.slice(start).filter((c) => c.role !== 'model');
      if (!fresh.length) {
        entry.kind = 'chat';
        out = [{ text: 'OK.' }];
      } else {
        entry.kind = 'turn';
        entry.index = start;
        entry.texts = [];
        entry.toolResults = [];
        for (const p of fresh.flatMap((c) => c.parts ?? [])) {
          if (typeof p.text === 'string' && !p.thought && !p.text.trimStart().startsWith('<session_context>'))
            entry.texts.push(p.text);
          if (p.functionResponse) {
            const r = p.functionResponse.response ?? {};
            entry.toolResults.push({
              id: p.functionResponse.id ?? '',
              name: p.functionResponse.name ?? '',
              text: typeof r.output === 'string' ? r.output : JSON.stringify(r),
              is_error: 'error' in r,
            });
          }
        }
        out = this.decide(entry);
      }
    }
    const commands = out.flatMap((o) => ('functionCall' in o ? [String(o.functionCall.args.command)] : []));
    const text = out.flatMap((o) => ('text' in o ? [o.text] : [])).join('');
    entry.answer = { finishReason: 'STOP', ...(text ? { text } : {}), ...(commands.length ? { commands } : {}) };
    this.opts.log?.(
      `${this.opts.name}: #${entry.seq} ${entry.kind} ${entry.model}${entry.index !== undefined ? ` [${entry.index}]` : ''}` +
        `${entry.delivered?.length ? ` got ${entry.delivered.map((d) => d.id).join(', ')}` : ''}` +
        `${entry.toolResults?.length ? ` +${entry.toolResults.length} tool result(s)` : ''}` +
        ` → ${commands.length ? `run_shell_command (${commands.map((c) => c.slice(0, 60)).join(' | ')})` : JSON.stringify(text.slice(0, 60))}`,
    );
    if (m[2] === 'generateContent')
      send(res, 200, {
        candidates: [{ content: { role: 'model', parts: out }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage(10, this.opts.usage?.(entry.seq)),
      });
    else await this.stream(res, out, entry);
    done();
  }

  /** The answer to a user turn: one run_shell_command call per `post`, else text. */
  private decide(entry: LoggedRequest): Out[] {
    entry.delivered = (entry.texts ?? []).flatMap((t) => parseDelivered(t));
    const calls: Array<{ command: string; description: string }> = [];
    const said: string[] = [];
    const actions = entry.delivered.length
      ? entry.delivered.map((d) => this.opts.onMessage(d, entry))
      : (entry.texts ?? []).map((t) => this.opts.onText?.(t, entry));
    for (const a of actions) {
      if (a && 'post' in a) calls.push({ command: postCommand(a.post), description: 'Reply through baton' });
      else if (a && 'run' in a) calls.push({ command: a.run, description: 'Run it' });
      else if (a && 'ask' in a)
        return [{ functionCall: { name: 'ask_user', args: { questions: [{ ...a.ask, type: 'choice' }] } } }];
      else if (a && 'say' in a) said.push(a.say);
    }
    if (calls.length) return calls.map((args) => ({ functionCall: { name: 'run_shell_command', args } }));
    if (said.length) return [{ text: said.join('\n') }];
    if (entry.toolResults?.length)
      return [
        { text: entry.toolResults.some((t) => t.is_error) ? 'The reply command failed.' : 'Replied through baton.' },
      ];
    return [{ text: 'Noted.' }];
  }

  private async stream(res: ServerResponse, out: Out[], entry: LoggedRequest): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await this.opts.hold?.(entry);
    // Text goes out in pieces, as the real API streams it; each function call whole, in its own event.
    const events = out.flatMap((o): Part[][] => ('text' in o ? pieces(o.text, 40).map((text) => [{ text }]) : [[o]]));
    events.forEach((parts, i) => {
      const last = i === events.length - 1;
      const candidate = { content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) };
      res.write(
        `data: ${JSON.stringify({ candidates: [candidate], usageMetadata: usage(last ? 10 : 0, this.opts.usage?.(entry.seq), last), modelVersion: entry.model, responseId: `mock-${entry.seq}` })}\r\n\r\n`,
      );
    });
    res.end();
  }
}

/** The usage on a chunk: the last carries it all; earlier ones only the prompt's count (as the real API sends them). */
function usage(output: number, u?: MockUsage, last = true): Record<string, number> {
  if (!u) return { promptTokenCount: 100, candidatesTokenCount: output, totalTokenCount: 100 + output };
  if (!last) return { promptTokenCount: u.input, totalTokenCount: u.input };
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output,
    cachedContentTokenCount: u.cached,
    thoughtsTokenCount: u.thoughts,
    totalTokenCount: u.input + u.output + u.thoughts,
  };
}
