import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/contract";
import ApiReferencePage from "./page";

describe("/docs/api", () => {
  it("renders every operation of the document, grouped by tag, with its permission, notes, body and response fields", () => {
    const html = renderToStaticMarkup(createElement(ApiReferencePage));
    for (const op of OPERATIONS) expect(html, op.operationId).toContain(`id="${op.operationId}"`);
    expect(html).toContain('id="api-tokens"');
    expect(html).toContain("api_token.create");
    expect(html).toContain("What the token is for");
    // Response fields, through the named schemas they refer to, and the operation's notes.
    expect(html).toContain("catalog_hash");
    expect(html).toContain("cron_expression");
    expect(html).toContain("Deletes the syncs that use it too");
    expect(html).toContain("/api/v1/openapi.json");
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
  });
});
