// Issue 12 items 3 and 4, performed against every place the project renders Liquid: sync mapping
// templates (compileTemplate, through compileMapping), Slack messages (renderTemplate) and HttpModel
// request bodies (renderJsonTemplate). Templates may not read files, and a template that loops,
// doubles a string or runs a hostile regex fails with a limit error instead of holding the process.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderJsonTemplate, renderTemplate } from "@/lib/connectors/shared/liquid";
import { compileMapping, MappingError } from "@/lib/sync-rules/mapping";
import { compileTemplate } from "@/lib/sync-rules/templates";
import { createLiquid, NO_FILES, TEMPLATE_LIMITS } from "./engine";

type Render = (source: string, scope: Record<string, unknown>) => unknown;

const RENDERERS: [string, Render][] = [
  ["sync mapping template", (source, scope) => compileTemplate(source).render(scope)],
  ["Slack message_template", (source, scope) => renderTemplate(source, scope)],
  ["HttpModel request_format", (source, scope) => renderJsonTemplate({ inputs: source }, scope)],
];

/** The rendered value, or the error's message: either way, what could reach a receiver or a person. */
function outcome(render: Render, source: string, scope: Record<string, unknown> = {}): { ok: boolean; text: string } {
  try {
    return { ok: true, text: JSON.stringify(render(source, scope)) };
  } catch (err) {
    return { ok: false, text: (err as Error).message };
  }
}

// A secrets file under the working directory, like .data/secrets.json of the embedded setup.
const SECRET_DIR = ".data";
const SECRET_FILE = path.join(SECRET_DIR, `template-attack-${process.pid}.json`);
const SECRET_MARK = `secret-${process.pid}-do-not-leak`;
const PACKAGE_NAME = (JSON.parse(readFileSync("package.json", "utf8")) as { name: string }).name;

beforeAll(() => {
  mkdirSync(SECRET_DIR, { recursive: true });
  writeFileSync(SECRET_FILE, JSON.stringify({ jwtSecret: SECRET_MARK }));
});
afterAll(() => rmSync(SECRET_FILE, { force: true }));

describe.each(RENDERERS)("%s: no file system", (_name, render) => {
  const sources = [
    "{% include 'package.json' %}",
    "{% render 'package.json' %}",
    "{% layout 'package.json' %}",
    `{% include '${SECRET_FILE}' %}`,
    `{% render '${SECRET_FILE}' %}`,
    `{% layout '${SECRET_FILE}' %}body`,
    "{% include '.data/secrets.json' %}",
    `{% liquid\ninclude '${SECRET_FILE}' %}`,
    "{% include file %}",
  ];
  it.each(sources)("%s fails with the clear error and outputs no file", (source) => {
    const result = outcome(render, source, { file: SECRET_FILE });
    expect(result.ok).toBe(false);
    expect(result.text).toContain(NO_FILES);
    expect(result.text).not.toContain(SECRET_MARK);
    expect(result.text).not.toContain(`"name": "${PACKAGE_NAME}"`);
  });
});

describe("the engine factory", () => {
  it("refuses file lookups through the API too", () => {
    const engine = createLiquid();
    expect(() => engine.renderFileSync(SECRET_FILE)).toThrow(NO_FILES);
    expect(() => engine.parseFileSync("package.json")).toThrow(NO_FILES);
  });

  it("still renders ordinary templates, captures and loops", () => {
    const engine = createLiquid();
    const source = "{% for i in (1..3) %}{% capture c %}[{{ i | plus: 1 }}]{% endcapture %}{{ i }}{{ c }}{% endfor %}{{ a | join: ',' }}";
    expect(engine.parseAndRenderSync(source, { a: [1, 2] })).toBe("1[2]2[3]3[4]1,2");
  });
});

const SIZE_LIMIT = /it was stopped after building 5,000,000 characters or list items, the size limit of one render/;
const TIME_LIMIT = new RegExp(`it was stopped after ${TEMPLATE_LIMITS.renderMs} ms, the time limit of one render`);

describe.each(RENDERERS)("%s: bounded renders", (_name, render) => {
  it("a loop over (1..30000000) fails with the size limit", { timeout: 10_000 }, () => {
    const result = outcome(render, "{% for i in (1..30000000) %}{% endfor %}");
    expect(result).toEqual({ ok: false, text: expect.stringMatching(SIZE_LIMIT) });
  });

  it("nested loops that stay under the size limit fail with the time limit", { timeout: 10_000 }, () => {
    // 100,000,000 empty steps over one small array: far more than any machine does within the
    // time limit, and nothing allocated per step, so only the time limit can stop it.
    const result = outcome(render, "{% assign a = (1..10000) %}{% for i in a %}{% for j in a %}{% endfor %}{% endfor %}");
    expect(result).toEqual({ ok: false, text: expect.stringMatching(TIME_LIMIT) });
  });

  it("doubling a string 24 times fails with the size limit", { timeout: 10_000 }, () => {
    const source = "{% assign s = 'x' %}" + "{% assign s = s | append: s %}".repeat(24) + "{{ s | size }}";
    expect(outcome(render, source)).toEqual({ ok: false, text: expect.stringMatching(SIZE_LIMIT) });
  });

  it("doubling a capture fails with the size limit", { timeout: 10_000 }, () => {
    const source = "{% capture s %}x{% endcapture %}{% for i in (1..28) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s | size }}";
    expect(outcome(render, source)).toEqual({ ok: false, text: expect.stringMatching(SIZE_LIMIT) });
  });

  it("flooding the output fails with the size limit", { timeout: 10_000 }, () => {
    const source = `{% for i in (1..1000) %}{% for j in (1..1000) %}${"y".repeat(5000)}{% endfor %}{% endfor %}`;
    expect(outcome(render, source)).toEqual({ ok: false, text: expect.stringMatching(SIZE_LIMIT) });
  });
});

describe("regex_replace in sync mapping templates", () => {
  const regex = (pattern: string, value: string) => outcome(RENDERERS[0][1], `{{ v | regex_replace: '${pattern}', 'x' }}`, { v: value });

  it("the catastrophic pattern (a+)+$ on 30 a's finishes, with JavaScript's result", { timeout: 10_000 }, () => {
    const value = `${"a".repeat(30)}!`;
    expect(regex("(a+)+$", value)).toEqual({ ok: true, text: JSON.stringify(value) });
    expect(regex("(a+)+$", "a".repeat(30))).toEqual({ ok: true, text: JSON.stringify("x") });
  });

  it("a pattern that rescans the value on every match fails with the time limit", { timeout: 10_000 }, () => {
    expect(regex(".*z|a", "a".repeat(40_000))).toEqual({ ok: false, text: expect.stringMatching(TIME_LIMIT) });
  });

  it("a large pattern on a long value is refused before it runs", () => {
    expect(regex("[a-z]{1000}", "a".repeat(40_000))).toEqual({ ok: false, text: expect.stringMatching(/is too complex for a value of 40,000 characters/) });
  });

  it("doubling a value with regex_replace fails with a limit", { timeout: 10_000 }, () => {
    const source = "{% assign s = 'xx' %}{% for i in (1..40) %}{% assign s = s | regex_replace: '.', '$&$&' %}{% endfor %}{{ s | size }}";
    const result = outcome(RENDERERS[0][1], source);
    expect(result.ok).toBe(false);
    expect(result.text).toMatch(/it was stopped after/);
  });
});

describe("a template that hits a limit fails that row only", () => {
  it("the mapping throws MappingError (recorded as the row's failure) naming the field and the limit", () => {
    const mapping = compileMapping([
      { from: "id", to: "id", mapping_type: "standard" },
      { from: "{% for i in (1..30000000) %}{% endfor %}", to: "spin", mapping_type: "template" },
    ]);
    expect(() => mapping.map({ id: 1 })).toThrow(MappingError);
    expect(() => mapping.map({ id: 1 })).toThrow(/^Mapping to "spin": .*size limit of one render/);
  });
});

describe("HttpModel request_format", () => {
  it("a string of '{{' and thousands of spaces is no regex catastrophe", { timeout: 10_000 }, () => {
    const result = outcome(RENDERERS[2][1], `{{${" ".repeat(3000)}!`);
    expect(result.ok).toBe(false);
    expect(result.text).toMatch(/not valid Liquid/);
  });

  it("keeps the type of a single {{ path }}", () => {
    expect(renderJsonTemplate({ n: "{{ n }}", s: " {{row.s}} ", t: "{{ n }} items" }, { n: 3, s: "x", row: { s: ["a"] } })).toEqual({
      n: 3,
      s: ["a"],
      t: "3 items",
    });
  });
});
