// Server-sent events (the WHATWG event-stream format): `event:`, `data:` (joined by line breaks when
// repeated), `id:`, comments from `:`, and an event ending at a blank line.
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  const flush = () => {
    if (data.length > 0) events.push({ event: event || "message", data: data.join("\n"), ...(id !== undefined ? { id } : {}) });
    event = "";
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      flush();
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  flush();
  return events;
}

/** The JSON data of each event (the `[DONE]` marker and non-JSON data left out). */
export function sseJson(text: string): { event: string; data: unknown }[] {
  const out: { event: string; data: unknown }[] = [];
  for (const e of parseSse(text)) {
    if (e.data === "[DONE]") continue;
    try {
      out.push({ event: e.event, data: JSON.parse(e.data) });
    } catch {
      // Keep-alive text or a partial line: not an event the answer is made of.
    }
  }
  return out;
}
