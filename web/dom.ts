/**
 * What every part of the page shares: finding and building elements (strings become text nodes, never
 * markup), the JSON API with its per-run control token, the result line, and the dialog.
 */
import type { ControlReply } from '../src/ui/api.js';

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing from the page`);
  return e as T;
};

type Child = Node | string | null | undefined | false;
/** Build an element; strings become text nodes, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | boolean> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = String(v);
    else if (typeof v === 'boolean') e.toggleAttribute(k, v);
    else e.setAttribute(k, v);
  }
  for (const c of children)
    if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleTimeString() : 'not typed yet');

/** The per-run token controls need; the stream sends it again on every connection (after a restart too). */
let token = document.querySelector<HTMLMetaElement>('meta[name="baton-token"]')?.content ?? '';
export const setToken = (t: string) => void (token = t);

export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: { accept: 'application/json' } });
  const body = (await r.json()) as T & { error?: string };
  if (!r.ok) throw new Error(body.error ?? `${r.status} ${r.statusText}`);
  return body;
}

async function control(op: string, body: Record<string, unknown>): Promise<ControlReply> {
  const r = await fetch(`api/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-baton-token': token },
    body: JSON.stringify(body),
  });
  const reply = (await r.json().catch(() => ({ ok: false, message: `${r.status} ${r.statusText}` }))) as ControlReply;
  return { ...reply, ok: r.ok && reply.ok, message: reply.message };
}

export function say(ok: boolean, message: string): void {
  const p = $('result');
  p.textContent = message;
  p.className = `result ${ok ? 'ok' : 'bad'}`;
}

/** A control: the button is busy while the daemon answers; the answer goes to the result line. */
export async function act(
  button: HTMLButtonElement,
  op: string,
  body: Record<string, unknown>,
  /** Is the input taken even when the answer is not ok (a note to all, archived, that some panes still wait for)? */
  taken: (r: ControlReply) => boolean = (r) => r.ok,
): Promise<boolean> {
  button.disabled = true;
  try {
    const r = await control(op, body);
    say(r.ok, r.message);
    return taken(r);
  } catch (err) {
    say(false, `${op} failed: ${(err as Error).message}`);
    return false;
  } finally {
    button.disabled = false;
  }
}

export function openDialog(title: string, body: Node): void {
  $('dialog-title').textContent = title;
  $('dialog-body').replaceChildren(body);
  const d = $<HTMLDialogElement>('dialog');
  if (!d.open) d.showModal();
  $('dialog-close').focus();
}
