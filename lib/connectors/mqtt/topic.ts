// What an MQTT 5 topic name may hold (OASIS MQTT 5.0, 1.5.4 UTF-8 strings and 4.7 topic names): the
// rules a rendered topic is checked against before it is published, and the save-time check of a
// topic template's fixed text (what every rendered topic contains, whatever the record).
//
// Control characters (U+0001-U+001F, U+007F-U+009F) and Unicode non-characters are refused although
// the specification only says a topic SHOULD NOT hold them: it lets a receiver treat them as a
// malformed packet, and Mosquitto does, closing the connection. That takes every message in flight
// on the connection down with it, and with mqtt.js (which then never answers those publishes) it
// used to hang the run (docs/security.md, item 23).
import type { ConfigurationProblem } from "../types";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /[\u0001-\u001F\u007F-\u009F]/;
const NON_CHARACTER = /[\uFDD0-\uFDEF\uFFFE\uFFFF]|[\uD83F\uD87F\uD8BF\uD8FF\uD93F\uD97F\uD9BF\uD9FF\uDA3F\uDA7F\uDABF\uDAFF\uDB3F\uDB7F\uDBBF\uDBFF][\uDFFE\uDFFF]/;
const MAX_BYTES = 65535;

/** Why `text` cannot be part of a published topic name, whatever surrounds it; undefined when it can. */
function invalidCharacters(text: string): string | undefined {
  if (/[+#]/.test(text)) return "a published topic has no wildcards (+ or #)";
  if (text.includes("\u0000")) return "topics contain no NUL character (U+0000)";
  const control = CONTROL.exec(text);
  if (control) {
    const code = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    return `topics contain no control characters such as a line feed or tab (found ${code}); brokers drop the connection on them`;
  }
  if (LONE_SURROGATE.test(text)) return "a topic must be valid UTF-8 (it holds half of a surrogate pair)";
  if (NON_CHARACTER.test(text)) return "topics contain no Unicode non-characters (such as U+FFFF)";
  return undefined;
}

/** Why `topic` cannot be published to (MQTT 5), or undefined when it can. */
export function invalidTopic(topic: string): string | undefined {
  return invalidCharacters(topic) ?? (Buffer.byteLength(topic) > MAX_BYTES ? `topics are at most ${MAX_BYTES} bytes` : undefined);
}

const TAG = /\{\{-?[\s\S]*?-?\}\}|\{%-?[\s\S]*?-?%\}/g;
const COMMENT = /\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}|\{%-?\s*#[\s\S]*?-?%\}/g;

/**
 * The literal text of a Liquid template that ends up in its output: outside its tags and comments,
 * without the whitespace that `{{-` / `-}}` trim or that the rendered name's trim removes at its ends.
 */
export function fixedText(template: string): string[] {
  // Not a template (renderName uses it as it is, untrimmed).
  if (!template.includes("{{") && !template.includes("{%")) return template === "" ? [] : [template];
  const source = template.replace(COMMENT, "");
  const parts: string[] = [];
  let last = 0;
  let trimNextStart = true;
  for (const match of source.matchAll(TAG)) {
    const tag = match[0];
    let text = source.slice(last, match.index);
    if (trimNextStart) text = text.trimStart();
    if (tag[2] === "-") text = text.trimEnd();
    parts.push(text);
    trimNextStart = tag[tag.length - 3] === "-";
    last = match.index + tag.length;
  }
  let tail = source.slice(last).trimEnd();
  if (trimNextStart) tail = tail.trimStart();
  parts.push(tail);
  return parts.filter((p) => p !== "");
}

/** Save-time problems of an MQTT destination's configuration: a topic template no record can make a topic of. */
export function topicTemplateProblems(config: Record<string, unknown>): ConfigurationProblem[] {
  const template = config.topic_template;
  if (typeof template !== "string") return [];
  for (const text of fixedText(template)) {
    const reason = invalidCharacters(text);
    if (reason) return [{ path: "topic_template", message: `topic_template cannot give a valid topic: ${reason}` }];
  }
  return [];
}
