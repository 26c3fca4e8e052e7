// The console puts a 422's field problems on its form fields: it reads each item's source.pointer
// (lib/http/error-body.ts), not a path of its own.
import { describe, expect, it } from "vitest";
import { errorBody } from "@/lib/http/error-body";
import { ApiError, fieldErrors } from "./client";

const apiError = (fields: Parameters<typeof errorBody>[3]) => {
  const body = errorBody(422, "validation_failed", "Validation failed.", fields);
  return new ApiError(body.message, 422, body.status, body.errors);
};

describe("fieldErrors", () => {
  it("keys problems by the pointer's dotted path without the prefixes, with the field's own message", () => {
    const err = apiError([
      { path: "connector.configuration.host", message: "is required" },
      { path: "connector.configuration.host", message: "must be a host name" },
      { path: "connector.name", message: "must not be empty" },
      { path: "connector", message: "is required: send {connector: {...}}" },
    ]);
    expect(fieldErrors(err, "connector.configuration", "connector")).toEqual({
      host: "is required; must be a host name",
      name: "must not be empty",
      "": "is required: send {connector: {...}}",
    });
  });

  it("leaves out items that point at no body field (parameters, whole-request errors)", () => {
    const err = apiError([{ path: "page", in: "query", message: "must be a whole number" }]);
    expect(fieldErrors(err)).toEqual({});
    const plain = new ApiError("Sync 3 is disabled.", 424, "failed_dependency", [
      { status: "424", title: "failed_dependency", detail: "Sync 3 is disabled." },
    ]);
    expect(fieldErrors(plain)).toEqual({});
    expect(fieldErrors(new Error("x"))).toEqual({});
  });
});
