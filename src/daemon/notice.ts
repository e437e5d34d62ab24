/** Text of baton's own (a notice, a reminder, a person's message) typed into an agent's pane. */
import type { Requests } from '../bus/bus.js';
import { isLocal, type Config } from '../config/config.js';
import type { Typist } from '../terminal/typist.js';
import type { Availability } from './availability.js';

/** Paste it and press Enter. Returns why not, or null when typed (or handed to the agent's machine). */
export async function typeNotice(
  d: { config: Config; bus: Requests; availability: Availability; typist: Typist },
  agentName: string,
  text: string,
): Promise<string | null> {
  // Another machine's agent (docs/protocol.md §10): its machine's daemon types the notice.
  if (!isLocal(d.config, agentName)) {
    await d.bus.forward({ op: 'notice', to: agentName, text });
    return null;
  }
  const ready = await d.availability.check(agentName);
  if (!ready.ok) return ready.reason;
  const agent = d.config.agents[agentName]!;
  const typed = await d.typist.type(agent, ready.pane, text, d.typist.enterDelay(agent));
  return typed.ok ? null : typed.error;
}
