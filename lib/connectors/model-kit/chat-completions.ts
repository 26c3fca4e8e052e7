// OpenAI's chat completions format, which OpenAI-compatible servers and Databricks' foundation model
// endpoints share: the reply's text, and a streamed answer (`chat.completion.chunk` events, then
// `[DONE]`) assembled into the `chat.completion` the non-streamed call returns.
import type { Row } from "../types";
import { PredictionFailed } from "./http";

interface Choice {
  index: number;
  message: { role: string; content: string };
  /** The reference's sample answers name `delta`: the assembled reply under both names. */
  delta: { role: string; content: string };
  finish_reason: unknown;
}

export function assembleChatCompletion(events: { event: string; data: unknown }[]): Row {
  let head: Row = {};
  let usage: unknown;
  const choices: Choice[] = [];
  for (const { data } of events) {
    const chunk = (data ?? {}) as Row;
    if (chunk.error) {
      const err = chunk.error as Row;
      throw new PredictionFailed(`The stream stopped with an error: ${String(err.message ?? JSON.stringify(err)).slice(0, 300)}`);
    }
    head = { id: chunk.id ?? head.id, created: chunk.created ?? head.created, model: chunk.model ?? head.model };
    if (chunk.usage) usage = chunk.usage;
    for (const part of Array.isArray(chunk.choices) ? (chunk.choices as Row[]) : []) {
      const index = typeof part.index === "number" ? part.index : 0;
      const choice = (choices[index] ??= { index, message: { role: "assistant", content: "" }, delta: { role: "assistant", content: "" }, finish_reason: null });
      const delta = (part.delta ?? {}) as Row;
      if (typeof delta.role === "string") choice.message.role = choice.delta.role = delta.role;
      if (typeof delta.content === "string") choice.message.content = choice.delta.content += delta.content;
      if (part.finish_reason !== undefined && part.finish_reason !== null) choice.finish_reason = part.finish_reason;
    }
  }
  if (choices.length === 0) throw new PredictionFailed("The stream ended without any choice.");
  return { ...head, object: "chat.completion", choices: choices.filter(Boolean), ...(usage ? { usage } : {}) };
}

/** choices[0]'s text: message.content, or delta.content as the reference's samples have it. */
export function chatText(answer: unknown): string | undefined {
  const choices = (answer as { choices?: Row[] } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const first = choices.find((c) => (c?.index ?? 0) === 0) ?? choices[0];
  const content = ((first?.message ?? first?.delta) as Row | undefined)?.content;
  return typeof content === "string" ? content : undefined;
}
