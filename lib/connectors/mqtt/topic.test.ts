// MQTT 5 topic names: what a rendered topic may hold, and the save-time check of a template's fixed text.
import { describe, expect, it } from "vitest";
import { validateConfiguration } from "../registry";
import { mqttDestinationDefinition } from "./definition";
import { fixedText, invalidTopic, topicTemplateProblems } from "./topic";

describe("invalidTopic", () => {
  it("accepts ordinary topics, UTF-8 text and emoji", () => {
    for (const topic of ["devices/42/state", "/leading/slash", "ünïcödé/主题", "a/😀/b", " spaced out "]) expect(invalidTopic(topic)).toBeUndefined();
  });

  it("refuses wildcards, NUL, control characters, lone surrogates, non-characters and more than 65535 bytes", () => {
    expect(invalidTopic("a/+/b")).toMatch(/wildcards/);
    expect(invalidTopic("a/#")).toMatch(/wildcards/);
    expect(invalidTopic("a\u0000b")).toMatch(/NUL/);
    expect(invalidTopic("line\nfeed")).toMatch(/control characters such as a line feed or tab \(found U\+000A\)/);
    for (const c of ["\t", "\r", "\u001f", "\u007f", "\u0085", "\u009f"]) expect(invalidTopic(`a${c}b`)).toMatch(/control characters/);
    expect(invalidTopic("a\uD800b")).toMatch(/UTF-8/);
    expect(invalidTopic("a\uDC00")).toMatch(/UTF-8/);
    for (const c of ["\uFFFF", "\uFFFE", "\uFDD0", "\uD83F\uDFFF", "\uDBFF\uDFFE"]) expect(invalidTopic(`a${c}`)).toMatch(/non-characters/);
    expect(invalidTopic("x".repeat(65535))).toBeUndefined();
    expect(invalidTopic("é".repeat(32768))).toMatch(/65535 bytes/);
  });
});

describe("a topic template's fixed text", () => {
  it("is the text outside tags and comments, without what the template trims", () => {
    expect(fixedText("devices/{{ id }}/state")).toEqual(["devices/", "/state"]);
    expect(fixedText("\n a/{{ id }} \n")).toEqual(["a/"]);
    expect(fixedText("a/\n{{- id -}}\n/b")).toEqual(["a/", "/b"]);
    expect(fixedText("a/{% comment %}#\n{% endcomment %}{{ id }}")).toEqual(["a/"]);
    // Not a template: used as it is, whitespace included.
    expect(fixedText("\nplain")).toEqual(["\nplain"]);
  });

  it("is refused on save when no record could make a topic of it, naming topic_template", () => {
    const base = { url: "mqtt://broker.example.com:1883" };
    expect(validateConfiguration(mqttDestinationDefinition, { ...base, topic_template: "devices/{{ id }}" })).toEqual([]);
    expect(validateConfiguration(mqttDestinationDefinition, { ...base, topic_template: "\n  devices/{{ id }}\n" })).toEqual([]);
    // Values are checked per record, when rendered.
    expect(validateConfiguration(mqttDestinationDefinition, { ...base, topic_template: "{{ name }}" })).toEqual([]);
    for (const [template, reason] of [
      ["devices/\n{{ id }}", /line feed/],
      ["devices/{{ id }}/#", /wildcards/],
      ["+/{{ id }}", /wildcards/],
      ["a\u0000{{ id }}", /NUL/],
      ["plain\n", /line feed/],
    ] as const) {
      const errors = validateConfiguration(mqttDestinationDefinition, { ...base, topic_template: template });
      expect(errors, template).toHaveLength(1);
      expect(errors[0].path).toBe("topic_template");
      expect(errors[0].message).toMatch(/^topic_template cannot give a valid topic: /);
      expect(errors[0].message).toMatch(reason);
    }
    expect(topicTemplateProblems({ topic_template: 42 })).toEqual([]);
  });
});
