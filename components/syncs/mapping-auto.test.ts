import { describe, expect, it } from "vitest";
import type { Mapping } from "@/lib/api-client/types";
import { isUnknownField, mapSameNames, withNullPolicy } from "./mapping-auto";

describe("mapSameNames", () => {
  const fields = [{ name: "id" }, { name: "email" }, { name: "Full_Name" }, { name: "phone" }];

  it("maps each unmapped destination field to the model column of the same name", () => {
    const { mappings, added } = mapSameNames([], fields, ["id", "email", "full_name", "created_at"]);
    expect(mappings).toEqual([
      { mapping_type: "standard", from: "id", to: "id" },
      { mapping_type: "standard", from: "email", to: "email" },
      { mapping_type: "standard", from: "full_name", to: "Full_Name" },
    ]);
    expect(added).toBe(3);
  });

  it("keeps existing mappings, fills a required field still waiting for its column, adds no duplicate", () => {
    const start = [
      { mapping_type: "standard" as const, from: "", to: "email" },
      { mapping_type: "template" as const, from: "{{ id }}", to: "id" },
    ];
    const { mappings, added } = mapSameNames(start, fields, ["id", "email"]);
    expect(mappings).toEqual([
      { mapping_type: "standard", from: "email", to: "email" },
      { mapping_type: "template", from: "{{ id }}", to: "id" },
    ]);
    expect(added).toBe(1);
    expect(mapSameNames(mappings, fields, ["id", "email"]).added).toBe(0);
  });
});

describe("isUnknownField", () => {
  const fields = [{ name: "email" }, { name: "address" }, { name: "items" }];
  it("flags a field the stream does not declare, and accepts nested paths under a known one", () => {
    expect(isUnknownField("emial", fields)).toBe(true);
    expect(isUnknownField("email", fields)).toBe(false);
    expect(isUnknownField("address.city", fields)).toBe(false);
    expect(isUnknownField("items[].sku", fields)).toBe(false);
  });
  it("accepts anything on a stream that declares no fields, and says nothing of an empty field", () => {
    expect(isUnknownField("whatever", [])).toBe(false);
    expect(isUnknownField("", fields)).toBe(false);
  });
});

describe("withNullPolicy", () => {
  const mappings: Mapping[] = [
    { mapping_type: "standard", from: "email", to: "email" },
    { mapping_type: "template", from: "{{ name }}", to: "name", null_policy: "skip" },
    { mapping_type: "static", from: "console", to: "origin" },
    { mapping_type: "standard", from: "note", to: "note" },
  ];

  it("sets skip on the chosen mappings only, never on a static value", () => {
    expect(withNullPolicy(mappings, new Set([0, 2]), "skip")).toEqual([
      { mapping_type: "standard", from: "email", to: "email", null_policy: "skip" },
      mappings[1],
      mappings[2],
      mappings[3],
    ]);
  });

  it("write is the default: it removes the field rather than sending write", () => {
    const next = withNullPolicy(mappings, new Set([1, 3]), "write");
    expect(next[1]).toEqual({ mapping_type: "template", from: "{{ name }}", to: "name" });
    expect("null_policy" in next[1]).toBe(false);
    expect(next[3]).toEqual(mappings[3]);
  });
});
