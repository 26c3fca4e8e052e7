// The behaviour every SQL destination promises the engine (lib/connectors/shared/sql-write.ts), run
// against a real server of each kind. The calling test file creates the `people` table:
//   id integer PRIMARY KEY, name NOT NULL text, email text, score decimal(10,2), big bigint,
//   born date, seen_at timestamp, extra json, created_at timestamp with a default
// Each case writes its own id range, so the cases do not depend on one another's rows.
import { describe, expect, it } from "vitest";
import type { DestinationConnector, Row, WriteRecord } from "@/lib/connectors/types";
import { closedPort, streamFor } from "./connectors";

export interface SqlDestinationTarget {
  destination: DestinationConnector;
  /** The connector configuration for the test database (overrides replace top-level fields). */
  config(overrides?: Row): Row;
  /** `people`, qualified as the dialect needs it in the contract's own SELECTs. */
  peopleTable: string;
  /** Runs a SELECT on the test database and returns plain rows. */
  select(text: string): Promise<Row[]>;
  /** The batch size the destination's discovery declares for its tables. */
  batchSize: number;
  /** The server's words for a NULL in a NOT NULL column and for text in an integer column. */
  messages: { notNull: RegExp; badInteger: RegExp };
}

const rec = (key: string, action: WriteRecord["action"], payload: Row): WriteRecord => ({ key, action, payload });
const people = streamFor("people");

/** Registers the contract's cases; `target` is read when a case runs (after the file's beforeAll). */
export function sqlDestinationContract(target: () => SqlDestinationTarget): void {
  describe("SQL destination contract", () => {
    const write = (records: WriteRecord[], config?: Row) => target().destination.write(config ?? target().config(), records, { stream: people, batch: true });
    const count = async (from: number, to: number) =>
      Number((await target().select(`SELECT COUNT(*) AS n FROM ${target().peopleTable} WHERE id BETWEEN ${from} AND ${to}`))[0].n);

    it("discovers writable streams with required columns and primary keys", async () => {
      const stream = (await target().destination.discover(target().config())).streams.find((s) => s.name === "people");
      expect(stream).toMatchObject({ batch_support: true, batch_size: target().batchSize, primary_key: ["id"], action: "fetch" });
      expect(stream?.json_schema.required).toEqual(["id", "name"]);
    });

    it("inserts a batch and isolates the one bad row", async () => {
      const records = Array.from({ length: 20 }, (_, i) => rec(`k${i}`, "insert", { id: i + 1, name: i === 13 ? null : `Person ${i + 1}`, extra: { n: i } }));
      const outcomes = await write(records);
      expect(outcomes).toHaveLength(20);
      expect(outcomes.filter((o) => !o.ok)).toEqual([{ key: "k13", ok: false, error: expect.stringMatching(target().messages.notNull), retryable: false }]);
      expect(await count(1, 20)).toBe(19);
    });

    it("updates, upserts and deletes by primary key", async () => {
      const seeded = await write([101, 102, 103].map((id) => rec(`i${id}`, "insert", { id, name: `Person ${id}` })));
      expect(seeded.every((o) => o.ok)).toBe(true);
      const outcomes = await write([
        rec("u1", "update", { id: 101, name: "Updated one", email: "one@example.com" }),
        rec("u2", "update", { id: 777, name: "Missing" }),
        rec("s1", "upsert", { id: 102, name: "Upserted two" }),
        rec("s2", "upsert", { id: 150, name: "Upserted fifty" }),
        rec("d1", "delete", { id: 103 }),
        rec("x1", "insert", { id: 160, name: "x", nope: 1 }),
      ]);
      const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
      expect(byKey.u1.ok && byKey.s1.ok && byKey.s2.ok && byKey.d1.ok).toBe(true);
      expect(byKey.u2).toMatchObject({ ok: false, error: expect.stringMatching(/No row/) });
      expect(byKey.x1).toMatchObject({ ok: false, error: 'Unknown column "nope" for table "people".' });
      const rows = await target().select(`SELECT id, name, email FROM ${target().peopleTable} WHERE id IN (101, 102, 103, 150, 160) ORDER BY id`);
      expect(rows).toEqual([
        { id: 101, name: "Updated one", email: "one@example.com" },
        { id: 102, name: "Upserted two", email: null },
        { id: 150, name: "Upserted fifty", email: null },
      ]);
    });

    it("leaves a column a payload lacks untouched, beside payloads that write it in the same batch (null_policy skip)", async () => {
      const seeded = await write([201, 202, 203, 204].map((id) => rec(`n${id}`, "insert", { id, name: `Person ${id}`, email: `p${id}@example.com`, score: id })));
      expect(seeded.every((o) => o.ok)).toBe(true);
      const outcomes = await write([
        // Payloads of one mapping where email was empty and skipped, next to ones that carry it.
        rec("a", "upsert", { id: 201, name: "Kept email" }),
        rec("b", "upsert", { id: 202, name: "New email", email: "new@example.com" }),
        rec("c", "upsert", { id: 203, name: "Cleared", email: null }),
        rec("d", "update", { id: 204, score: 5 }),
        rec("e", "upsert", { id: 205, name: "Fresh" }),
      ]);
      expect(outcomes.every((o) => o.ok), JSON.stringify(outcomes)).toBe(true);
      const rows = await target().select(`SELECT id, name, email, score FROM ${target().peopleTable} WHERE id BETWEEN 201 AND 205 ORDER BY id`);
      expect(rows.map((r) => ({ ...r, score: r.score === null ? null : Number(r.score) }))).toEqual([
        { id: 201, name: "Kept email", email: "p201@example.com", score: 201 },
        { id: 202, name: "New email", email: "new@example.com", score: 202 },
        { id: 203, name: "Cleared", email: null, score: 203 },
        { id: 204, name: "Person 204", email: "p204@example.com", score: 5 },
        { id: 205, name: "Fresh", email: null, score: null },
      ]);
    });

    it("reports a type error on its own row", async () => {
      const outcomes = await write([rec("a", "upsert", { id: 170, name: "ok" }), rec("b", "upsert", { id: "not-a-number", name: "bad" })]);
      expect(outcomes.find((o) => o.key === "a")?.ok).toBe(true);
      expect(outcomes.find((o) => o.key === "b")).toMatchObject({ ok: false, error: expect.stringMatching(target().messages.badInteger) });
      expect(await count(170, 170)).toBe(1);
    });

    it("fails every record as retryable when the server cannot be reached", async () => {
      const outcomes = await write([rec("z", "insert", { id: 1, name: "z" })], target().config({ port: await closedPort() }));
      expect(outcomes).toEqual([{ key: "z", ok: false, error: expect.stringMatching(/connection refused/), retryable: true }]);
    });
  });
}
