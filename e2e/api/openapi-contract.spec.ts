// The OpenAPI document against the running server, through the client generated from it
// (lib/api-client/generated, npm run openapi:generate): every operation is called with a realistic
// request, and every answer (successes, the error cases the walk triggers, and an unauthenticated
// and an unknown-id probe per operation) must have a status, content type and body the document
// declares for it (ajv, JSON Schema 2020-12). So the document cannot drift from the code.
import { expect, test } from "@playwright/test";
import { BASE_URL } from "../support/api";
import { Fixtures } from "../support/contract-fixtures";
import { WALK } from "../support/contract-walk";
import {
  ContractChecker,
  documentOperations,
  generatedDocument,
  successStatuses,
  type DocumentOperation,
  type OperationId,
} from "../support/openapi-contract";

const doc = generatedDocument();
const OPERATIONS = documentOperations(doc);

/**
 * Operations whose success response has no schema in the document yet, so their success bodies
 * cannot be validated. It may only shrink: the test below fails when an operation gains a schema
 * and is still listed, and when one without a schema is not listed.
 */
const PENDING_RESPONSE_SCHEMAS: ReadonlySet<string> = new Set<OperationId>([]);

/**
 * Answers the server gives that the document does not declare yet (each one found by this walk).
 * It may only shrink: the test below fails once the document declares a listed status.
 */
const UNDECLARED_STATUSES: Partial<Record<OperationId, number[]>> = {};

/** Operations the test server cannot answer with a success, and why; their error answers are checked. */
const NO_SUCCESS_HERE: Partial<Record<OperationId, string>> = {
  signup: "sign-up is off on the test server (403)",
  createSetup: "the test server already has its admin (409)",
};

const checker = new ContractChecker(doc, PENDING_RESPONSE_SCHEMAS, UNDECLARED_STATUSES);
const fx = new Fixtures(checker);

test.describe.configure({ timeout: 120_000 });
test.afterAll(async () => fx.dropTables());

test("the generated client was built from the very document the server serves", async ({ request }) => {
  const res = await request.get("/api/v1/openapi.json");
  expect(res.status()).toBe(200);
  expect(await res.json(), "stale: run `npm run openapi:generate` and restart the server").toEqual(doc);
});

test("the walk has one step per operation, and every success answer with a body has a schema", () => {
  expect(Object.keys(WALK).sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
  const withoutSchema = OPERATIONS.filter((op) =>
    successStatuses(op).some((s) => s !== "204" && !op.responses[s].content),
  );
  expect(withoutSchema.map((op) => op.operationId).sort()).toEqual([...PENDING_RESPONSE_SCHEMAS].sort());
  const declaredNow = Object.entries(UNDECLARED_STATUSES).flatMap(([id, statuses]) =>
    (statuses ?? [])
      .filter((s) => OPERATIONS.find((op) => op.operationId === id)?.responses[String(s)])
      .map((s) => `${id} ${s}`),
  );
  expect(declaredNow, "declared now: remove them from UNDECLARED_STATUSES").toEqual([]);
});

const placeholders = (p: string) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The path with every placeholder set to `value`. */
const fill = (p: string, value: string) => p.replace(/\{[^}]+\}/g, value);

async function probe(op: DocumentOperation, init: { token?: string; workspaceId?: number; value: string }) {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.workspaceId) headers["Workspace-Id"] = String(init.workspaceId);
  const body = "requestBody" in op ? "{}" : undefined;
  if (body) headers["Content-Type"] = "application/json";
  const response = await fetch(`${BASE_URL}${fill(op.path, init.value)}`, {
    method: op.method.toUpperCase(),
    headers,
    body,
    redirect: "manual",
  });
  return checker.check(op.method.toUpperCase(), op.path, response);
}

/** Error answers every protected operation documents: 401 without a token, a 4xx for an unknown id. */
async function probeErrors(op: DocumentOperation): Promise<void> {
  if (op["x-not-an-endpoint"] || !op.security?.length) return;
  expect((await probe(op, { value: "1" })).status, `${op.operationId} without a token`).toBe(401);
  if (placeholders(op.path).length === 0) return;
  const seen = await probe(op, {
    token: await fx.adminToken(),
    workspaceId: await fx.workspaceId(),
    value: "999999999",
  });
  expect(seen.status, `${op.operationId} with an unknown id`).toBeGreaterThanOrEqual(400);
  expect(seen.status, `${op.operationId} with an unknown id`).toBeLessThan(500);
}

for (const op of OPERATIONS) {
  test(`${op.operationId}: ${op.method.toUpperCase()} ${op.path}`, async () => {
    const from = checker.observations.length;
    await WALK[op.operationId as OperationId](fx);
    const mine = checker.observations.slice(from).filter((o) => o.operationId === op.operationId);
    expect(mine.length, "called through the generated client").toBeGreaterThan(0);
    const succeeded = mine.some((o) => o.status < 400);
    const reason = NO_SUCCESS_HERE[op.operationId as OperationId];
    if (successStatuses(op).length && !reason) expect(succeeded, "at least one success answer").toBe(true);
    await probeErrors(op);
    expect(checker.observations.slice(from).flatMap((o) => o.problems)).toEqual([]);
  });
}
