/** One notify sink as `status` shows it; declarations only, so the dashboard's build can use it (ui/api.d.ts). */
export interface SinkRecord {
  /** `name`, else the kind and its place in the list (`webhook 1`). */
  label: string;
  kind: 'webhook' | 'ntfy' | 'command';
  /** Where it sends, without what may be secret (a URL's path, an ntfy topic, a command's arguments). */
  target: string;
  events: string[];
  last_success: { at: string; event: string } | null;
  last_failure: { at: string; event: string; error: string } | null;
  sent: number;
  failed: number;
  /** Repeats folded into a later notification by the cooldown. */
  folded: number;
  /** Notifications dropped because the sink's queue was full (it was failing or slow for long). */
  dropped: number;
}
