import { answered, type CommandSpec, UsageError } from '../command.js';

export const answer: CommandSpec = {
  usage: 'answer AGENT (CHOICE | --list) [--json]',
  summary: "answer an agent's open dialog (a permission, a question) with one of its own choices",
  options: { list: { type: 'boolean' }, json: { type: 'boolean' } },
  examples: ['baton answer claude1 --list', 'baton answer claude1 yes', 'baton answer codex1 2'],
  help: `
An agent waiting at a dialog — a permission request, a question to the user, a folder trust or login
prompt — blocks the conversation while it holds the turn (baton status says "blocked"). This answers
it from anywhere: the daemon types the keys that pick CHOICE in that client (a digit, a letter, Esc,
or the arrows and Enter, as the client itself takes them), and only while that same dialog — the
same lines, the same choices — is the one on the agent's screen at that moment; otherwise nothing is
typed and it says what is there now (exit 1). Each answer is an "answered" event.

  CHOICE   the number its screen shows, "yes" (the first affirmative choice), "no" (the negative
           one), or the first words of a choice's label (case does not matter; they must fit one)
  --list   print the dialog's question and its choices as the client lists them
  --json   print the dialog (with --list) or the daemon's answer as JSON

Exit 0 answered; 1 the agent has no open dialog, or the dialog changed or closed (nothing typed);
2 a misuse (no such agent, a CHOICE that names none of the choices, CHOICE and --list together).`,
  async run(inv) {
    const { answerRequest, formatOffered, offeredDialog } = await import('../../app/answer.js');
    const { request } = await import('../../app/requests.js');
    const config = (await import('../inputs.js')).configFrom(inv);
    const [agent, choice, ...extra] = inv.positionals;
    const list = Boolean(inv.values.list);
    const json = Boolean(inv.values.json);
    if (!agent) throw new UsageError('name the agent whose dialog to answer');
    if (extra.length) throw new UsageError('give one CHOICE (quote a label with spaces)');
    if (list === (choice !== undefined)) throw new UsageError('give a CHOICE, or --list to see the choices');
    const offer = await offeredDialog(config, agent);
    if (!offer.ok) return answered({ ok: false, message: offer.why }, json);
    if (list) {
      process.stdout.write(json ? `${JSON.stringify(offer.offered)}\n` : `${formatOffered(offer.offered)}\n`);
      return 0;
    }
    return answered(await request(config, answerRequest(offer.offered, choice!, 'cli')), json);
  },
};
