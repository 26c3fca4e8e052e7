// Liquid's parse errors in words a person can act on: what is wrong in their template and what to
// type. liquidjs says `output "{{ name" not closed` or `undefined filter: upcasee`; the person who
// wrote a mapping should read "… has no closing }}: add }} at its end".
const PARSE_SENTENCES: [RegExp, (...groups: string[]) => string][] = [
  [/^output "([\s\S]*)" not closed$/, (output) => `"${output}" has no closing }}: add }} at its end`],
  [/^tag "?(\{%-?\s*(\w+)[\s\S]*?%\})"? not closed$/, (tag, name) => `${tag} has no {% end${name} %}: add it where the ${name} block ends`],
  [/^tag "([\s\S]*)" not closed$/, (tag) => `"${tag}" has no closing %}: add %} at its end`],
  [/^undefined filter: (.+)$/, (name) => `there is no filter named "${name}": check its spelling`],
  [/^tag "end(\w+)" not found$/, (name) => `{% end${name} %} has no {% ${name} %} before it: remove it, or open the block first`],
  [/^tag "(.+)" not found$/, (name) => `there is no tag {% ${name} %}: check its spelling`],
  [/^illegal tag: ([\s\S]+)$/, (tag) => `${tag} is missing a part: write the tag in full, such as {% if price > 10 %} or {% for item in list %}`],
  [/^raw "[\s\S]*" not closed$/, () => "{% raw %} has no {% endraw %}: add it where the raw text ends"],
  [/^expected "\|" before filter$/, () => "something follows a value that is not a filter: put | before each filter, such as {{ name | upcase }}"],
  [/^invalid value expression: "\s*"$/, () => "{{ }} is empty: put a column name inside, such as {{ first_name }}"],
  [/^invalid value expression: "([\s\S]*)"$/, (expression) => `"${expression}" is not a value: use a column name, a quoted text or a number`],
];

/** The plain sentence for a Liquid parse error message (its position already cut off); the message itself when none fits. */
export function plainParseError(message: string): string {
  for (const [pattern, sentence] of PARSE_SENTENCES) {
    const match = pattern.exec(message);
    if (match) return sentence(...match.slice(1));
  }
  return message;
}
