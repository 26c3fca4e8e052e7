// The reply's text in the answers of the model families that AWS hosts (Bedrock's and SageMaker's
// containers), for the `completion` column.
import type { Row } from "../types";

/** The reply's text in the model families' answers (Anthropic, Nova, Titan, Mistral, Llama, Cohere, OpenAI-style). */
export function replyText(answer: unknown): string | undefined {
  const a = (answer ?? {}) as Row;
  const textOf = (parts: unknown) =>
    Array.isArray(parts) ? parts.map((p) => (typeof (p as Row)?.text === "string" ? ((p as Row).text as string) : "")).join("") : undefined;
  const first = (v: unknown) => (Array.isArray(v) ? (v[0] as Row | undefined) : undefined);
  const candidates: unknown[] = [
    textOf(a.content),
    textOf(((a.output as Row | undefined)?.message as Row | undefined)?.content),
    first(a.results)?.outputText,
    first(a.outputs)?.text,
    a.generation,
    first(a.generations)?.text,
    (first(a.choices)?.message as Row | undefined)?.content,
    a.completion,
  ];
  return candidates.find((c): c is string => typeof c === "string");
}
