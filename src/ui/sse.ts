/** One Server-Sent Event, as the stream writes it (`id:` is the tab's cursor for a replay). */
export const sse = (event: string, data: unknown, id?: string): string =>
  `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
