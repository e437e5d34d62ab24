/**
 * The Bus contract (test/contract/) calls every method of the Bus: each member of every interface the Bus
 * and DeliveryBus are made of (src/bus/*.ts, followed through their intersections, `extends` and the
 * interfaces their properties hold — `events` —, and the Lease that lease() gives), named in a contract case as `.name(` (a method) or `.name`
 * (a property). A method added to a part without a case fails here. Read from the source text: the
 * project's TypeScript (7) has no compiler API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const read = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(ROOT, dir, f), 'utf8'))
    .join('\n');

/** Every `export interface`'s members (methods and properties) and what it extends; every `export type X = A & B`. */
function parts(src: string) {
  const interfaces = new Map<
    string,
    { extends: string[]; members: Array<{ name: string; method: boolean; type: string }> }
  >();
  for (const m of src.matchAll(/^export interface (\w+)(?:<[^>]*>)?(?: extends ([\w, ]+))? \{\n([\s\S]*?)^\}/gm)) {
    const members = [...m[3]!.matchAll(/^ {2}(?:readonly )?(\w+)\??(<[^>]*>)?(\(|: )(.*)$/gm)].map((x) => ({
      name: x[1]!,
      method: x[3] === '(',
      type: x[4]!,
    }));
    interfaces.set(m[1]!, {
      extends: (m[2] ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      members,
    });
  }
  const types = new Map<string, string[]>();
  for (const m of src.matchAll(/^export type (\w+) =([^;]*);/gm))
    types.set(
      m[1]!,
      [...m[2]!.matchAll(/\b([A-Z]\w+)\b/g)].map((x) => x[1]!),
    );
  return { interfaces, types };
}

/** The members the Bus promises: `Part.name`, with whether it is called. */
function busMembers(): Array<{ part: string; name: string; method: boolean }> {
  const { interfaces, types } = parts(read('src/bus'));
  const out: Array<{ part: string; name: string; method: boolean }> = [];
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const i = interfaces.get(name);
    if (!i) {
      for (const t of types.get(name) ?? []) visit(t);
      return;
    }
    i.extends.forEach(visit);
    for (const m of i.members) {
      out.push({ part: name, name: m.name, method: m.method });
      const held = /^(\w+);$/.exec(m.type)?.[1]; // a property holding another part (`events: EventLog`)
      // …when it has methods of its own: data (a Holder, a Fence) is what a case compares, not calls.
      if (!m.method && held && interfaces.get(held)?.members.some((x) => x.method)) visit(held);
    }
  };
  visit('Bus');
  visit('DeliveryBus');
  visit('Lease'); // what lease() gives: its generation and fence are the promise that fences the last holder
  return out;
}

it('the contract suite names every method of every part of the Bus', () => {
  const members = busMembers();
  expect(members.length).toBeGreaterThan(50); // the parse found the parts (66 when this was written)
  const contract = read('test/contract');
  const missing = members
    .filter((m) => !new RegExp(`\\.${m.name}${m.method ? '\\(' : '\\b'}`).test(contract))
    .map((m) => `${m.part}.${m.name}`);
  expect(missing).toEqual([]);
});
