// The one rule for what a validation problem says, applied to every schema's issues where the HTTP
// layer reports them (lib/http/errors.ts zodFieldErrors). A schema's own `error` text names what
// it expects ("must be true or false") or, for a missing field, what to send ("is required: send
// {...}"); zod uses that one text whether the field is missing or present with the wrong type. So
// the words are settled here, from the value that came: only a missing field "is required"; a
// present one says what was expected and what was received. Needs issues parsed with
// `reportInput: true` (lib/http/handler.ts); without the input, the schema's text stands.
import type { z } from "zod";

/**
 * Fields whose values are never repeated back in a message: secrets, and the objects that hold
 * them (a connection string sent where a configuration object belongs).
 */
const SECRET_NAME = /pass|secret|token|key|credential|auth|configuration|connection_spec|headers/i;
const MAX_SHOWN = 40;

/** The value a client sent, in words: `a string "abc"`, `1.5`, `null`, `an object`. */
export function describeValue(value: unknown, path: readonly PropertyKey[] = []): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": {
      const field = [...path].reverse().find((p) => typeof p === "string");
      if (typeof field === "string" && SECRET_NAME.test(field)) return "a string";
      const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
      return `a string ${JSON.stringify(shown)}`;
    }
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  record: "an object",
  date: "a date",
  bigint: "an integer",
  null: "null",
};

function expected(issue: z.core.$ZodIssueInvalidType): string {
  return EXPECTED[issue.expected] ?? `a value of type ${issue.expected}`;
}

/** Zod's own English texts, which say "received undefined" for a missing field. */
const ZOD_DEFAULT = /^Invalid (input|option)/;
const REQUIRED = /^is required/;

/** The message of one issue under the rule above. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  const message = issue.message;
  if (!("input" in issue)) return message;
  const input = (issue as { input?: unknown }).input;
  // A missing field: zod reports it as the wrong type (or not one of an enum's values).
  if (input === undefined && ["invalid_type", "invalid_value", "invalid_union"].includes(issue.code)) {
    if (REQUIRED.test(message)) return message;
    if (/^must /.test(message)) return `is required and ${message}`;
    return "is required";
  }
  if (issue.code !== "invalid_type" && issue.code !== "invalid_value") return message;
  const got = `(got ${describeValue(input, issue.path)})`;
  if (issue.code === "invalid_type" && (REQUIRED.test(message) || ZOD_DEFAULT.test(message))) {
    return `must be ${expected(issue)} ${got}`;
  }
  // A schema text that already shows the value (lib/validation/ids.ts) stands as it is.
  return message.includes("(got ") ? message : `${message} ${got}`;
}
