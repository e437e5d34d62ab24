/** zod issues as one line each, naming the key path (`agents.claude1.kind: Invalid option …`). */
import type { z } from 'zod';

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => `${at ? `${at}.` : ''}${k}: unknown key`).join('; ');
    }
    if (issue.code === 'invalid_key') {
      // A record key (agent or folder name) failed its own schema: say why, not just "invalid key".
      return `${at}: ${issue.issues.map((i) => i.message).join('; ') || issue.message}`;
    }
    return `${at || '(top level)'}: ${issue.message}`;
  });
}
