// What the vector destinations (Pinecone, Qdrant, Weaviate) share about a record's values: the
// vector comes from a model column (an array of numbers, or its JSON text as a pgvector or a text
// column gives it), its length is checked against the dimension discovery read from the index, and
// payloads/metadata come from an object column (or its JSON text). A value that cannot be sent fails
// its record alone with a sentence naming the column. Embeddings are computed upstream (the OpenAI
// source's embeddings operation gives an `embedding` column): docs/connectors/pinecone.md.
import { ConnectorError } from "../shared/errors";
import { JsonNumber, markedNumber } from "../shared/values";
import type { JsonSchema, Row, Stream } from "../types";

const shown = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** One element of a vector as a JavaScript number, or undefined when it is none. */
function element(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const text = value instanceof JsonNumber ? value.text : typeof value === "string" ? (markedNumber(value) ?? value) : undefined;
  if (text === undefined || text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The vector held by `column`: an array of numbers, or the JSON text of one ("[0.1, 0.2]", as a
 * pgvector column reads). `dimension`, when discovery found one, is the length it must have.
 */
export function vectorOf(value: unknown, column: string, dimension?: number): number[] {
  let list = value;
  if (typeof list === "string") {
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      throw new ConnectorError(`Column "${column}" holds "${shown(value as string)}", which is not a vector: map a column holding an array of numbers (an embedding).`);
    }
  }
  if (list === null || list === undefined) throw new ConnectorError(`Column "${column}" is empty: every record needs its vector (an array of numbers).`);
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConnectorError(`Column "${column}" holds ${shown(JSON.stringify(list) ?? String(list))}, which is not a vector: map a column holding a non-empty array of numbers.`);
  }
  const numbers: number[] = [];
  for (const [i, item] of list.entries()) {
    const n = element(item);
    if (n === undefined) throw new ConnectorError(`Column "${column}" has ${shown(String(item instanceof JsonNumber ? item.text : JSON.stringify(item)))} at position ${i + 1}, which is not a finite number.`);
    numbers.push(n);
  }
  if (dimension !== undefined && numbers.length !== dimension) {
    throw new ConnectorError(`Column "${column}" holds a vector of ${numbers.length} numbers; the index takes vectors of exactly ${dimension}.`);
  }
  return numbers;
}

/** An object column (payload, metadata, properties): an object, its JSON text, or nothing. */
export function objectOf(value: unknown, column: string): Row | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  let parsed: unknown = value;
  if (typeof parsed === "string") {
    try {
      parsed = JSON.parse(parsed) as unknown;
    } catch {
      throw new ConnectorError(`Column "${column}" holds text that is not a JSON object: "${shown(value as string)}".`);
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConnectorError(`Column "${column}" must hold an object (or its JSON text), not ${shown(JSON.stringify(parsed) ?? String(parsed))}.`);
  }
  return parsed as Row;
}

/** The stream's vector field schema: an array whose minItems/maxItems discovery set to the dimension. */
export function vectorField(dimension: number | undefined, description: string): JsonSchema {
  return {
    type: ["array", "string"],
    items: { type: "number" },
    description,
    ...(dimension !== undefined ? { minItems: dimension, maxItems: dimension, "x-dimension": dimension } : {}),
  };
}

/** The dimension discovery recorded on the stream's `field` (undefined: not known, not checked). */
export function dimensionOf(stream: Stream, field: string): number | undefined {
  const properties = (stream.json_schema as { properties?: Record<string, JsonSchema> } | undefined)?.properties;
  const d = properties?.[field]?.["x-dimension"];
  return typeof d === "number" && Number.isInteger(d) && d > 0 ? d : undefined;
}

/** A record's id as text (Pinecone ids, Weaviate's derivation): a non-empty string or an integer. */
export function idText(value: unknown, column: string): string {
  const text = value instanceof JsonNumber ? value.text : typeof value === "string" ? (markedNumber(value) ?? value) : typeof value === "number" || typeof value === "bigint" ? String(value) : undefined;
  if (text === undefined || text === "") throw new ConnectorError(`Column "${column}" is empty: every record needs an id.`);
  return text;
}
