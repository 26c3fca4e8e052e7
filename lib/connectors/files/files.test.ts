// The file layer over a local store (LocalFiles): which files a query names, the copies' lifetime
// (removed after success, failure and cancel), the size cap, DuckDB over CSV/JSON/Parquet copies,
// and the lockdown: a query naming a file outside its copies is refused.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { globToRegExp, listPrefix, matchesGlob } from "./glob";
import { LocalFiles } from "./local-files";
import { planQuery } from "./plan";
import { discoverFiles, queryFiles, readFiles, ALL_EXTENSIONS } from "./query";
import { TEMP_PREFIX } from "./fetch";
import { writeRowsFile } from "./write";

// Each DuckDB call starts an isolated process: on a loaded 2-core machine one test takes minutes, not seconds.
vi.setConfig({ testTimeout: 240_000 });

let store: string;
let temp: string;
let files: LocalFiles;

async function leftovers(): Promise<string[]> {
  return (await readdir(temp)).filter((n) => n.startsWith(TEMP_PREFIX));
}

beforeAll(async () => {
  store = await mkdtemp(path.join(tmpdir(), "ds-files-store-"));
  temp = await mkdtemp(path.join(tmpdir(), "ds-files-temp-"));
  process.env.FILES_TEMP_DIR = temp;
  await mkdir(path.join(store, "exports", "2024"), { recursive: true });
  await mkdir(path.join(store, "other"), { recursive: true });
  await writeFile(path.join(store, "exports", "people.csv"), "id,name,updated\n1,ann,2024-01-01\n2,bob,2024-02-01\n3,cy,2024-03-01\n");
  await writeFile(path.join(store, "exports", "events.jsonl"), '{"id":10,"kind":"open"}\n{"id":11,"kind":"close"}\n');
  await writeFile(path.join(store, "exports", "array.json"), JSON.stringify([{ id: 1, tags: ["a"] }, { id: 2, tags: [] }]));
  await writeFile(path.join(store, "exports", "2024", "a.csv"), "id,v\n1,x\n");
  await writeFile(path.join(store, "exports", "2024", "b.csv"), "id,v\n2,y\n");
  await writeFile(path.join(store, "other", "elsewhere.csv"), "id\n99\n");
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  await conn.run(
    `COPY (SELECT i AS id, 'item ' || i AS label, i * 10000000000 AS big, DECIMAL '1.50' * i AS price FROM range(1, 1001) t(i)) TO '${path.join(store, "exports", "items.parquet")}' (FORMAT parquet)`,
  );
  conn.closeSync();
  instance.closeSync();
  files = new LocalFiles(store, "exports/");
});

afterAll(async () => {
  delete process.env.FILES_TEMP_DIR;
  delete process.env.FILES_MAX_DOWNLOAD_MB;
  await rm(store, { recursive: true, force: true });
  await rm(temp, { recursive: true, force: true });
});

describe("globs", () => {
  it("follow DuckDB's syntax", () => {
    expect(matchesGlob("a/*.csv", "a/x.csv")).toBe(true);
    expect(matchesGlob("a/*.csv", "a/b/x.csv")).toBe(false);
    expect(matchesGlob("a/**/*.csv", "a/b/c/x.csv")).toBe(true);
    expect(matchesGlob("a/**/*.csv", "a/x.csv")).toBe(true);
    expect(matchesGlob("a/?.csv", "a/x.csv")).toBe(true);
    expect(matchesGlob("a/[xy].csv", "a/y.csv")).toBe(true);
    expect(matchesGlob("a/[!xy].csv", "a/y.csv")).toBe(false);
    expect(matchesGlob("a.csv", "a.csv")).toBe(true);
    expect(globToRegExp("a+b(1).csv").test("a+b(1).csv")).toBe(true);
    expect(listPrefix("exports/2024/*.csv")).toBe("exports/2024/");
    expect(listPrefix("exports/x*.csv")).toBe("exports/");
  });
});

describe("planQuery", () => {
  it("maps URLs, relative names, globs and views to local copies, leaving other literals alone", async () => {
    const plan = await planQuery(
      files,
      `SELECT * FROM 'local://store/exports/people.csv' p JOIN "events.jsonl" e ON true, '2024/*.csv' g, 'local://store/other/elsewhere.csv' o WHERE p.name <> 'people.csv.bak' AND p.name <> 'ann'`,
    );
    expect(plan.files.map((f) => [f.entry.key, f.local]).sort()).toEqual([
      ["exports/2024/a.csv", "2024/a.csv"],
      ["exports/2024/b.csv", "2024/b.csv"],
      ["exports/events.jsonl", "events.jsonl"],
      ["exports/people.csv", "people.csv"],
      ["other/elsewhere.csv", ".outside/other/elsewhere.csv"],
    ]);
    expect(plan.sql("/D")).toBe(
      `SELECT * FROM '/D/people.csv' p JOIN "events.jsonl" e ON true, '/D/2024/*.csv' g, '/D/.outside/other/elsewhere.csv' o WHERE p.name <> 'people.csv.bak' AND p.name <> 'ann'`,
    );
  });

  it("refuses a URL with `..` and says when a URL matches nothing", async () => {
    await expect(planQuery(files, "SELECT * FROM 'local://store/../../etc/passwd'")).rejects.toThrow(/not a file name this connector reads/);
    await expect(planQuery(files, "SELECT * FROM 'local://store/exports/missing*.csv'")).rejects.toThrow(/No file matches local:\/\/store\/exports\/missing\*\.csv/);
  });

  it("ignores names in comments and dollar-quoted text", async () => {
    const plan = await planQuery(files, "SELECT 1 -- 'people.csv'\n/* 'people.csv' */, $$people.csv$$");
    expect(plan.files).toEqual([]);
  });
});

describe("queries over the copies", () => {
  it("reads CSV, JSON lines, JSON arrays and Parquet, with exact values", async () => {
    const csv = await queryFiles(files, "SELECT id, name FROM 'people.csv' ORDER BY id", 10);
    expect(csv.rows).toEqual([{ id: 1, name: "ann" }, { id: 2, name: "bob" }, { id: 3, name: "cy" }]);
    const jsonl = await queryFiles(files, `SELECT * FROM "events.jsonl" ORDER BY id`, 10);
    expect(jsonl.rows).toEqual([{ id: 10, kind: "open" }, { id: 11, kind: "close" }]);
    const array = await queryFiles(files, "SELECT * FROM 'local://store/exports/array.json' ORDER BY id", 10);
    expect(array.rows).toEqual([{ id: 1, tags: ["a"] }, { id: 2, tags: [] }]);
    const parquet = await queryFiles(files, "SELECT * FROM 'items.parquet' WHERE id = 1000", 10);
    expect(parquet.rows).toEqual([{ id: 1000, label: "item 1000", big: 10000000000000, price: "1500.000" }]);
    expect(parquet.columns.map((c) => c.type)).toEqual(["BIGINT", "VARCHAR", "BIGINT", "DECIMAL(37,3)"]);
    const glob = await queryFiles(files, "SELECT * FROM '2024/*.csv' ORDER BY id", 10);
    expect(glob.rows).toEqual([{ id: 1, v: "x" }, { id: 2, v: "y" }]);
    expect(await leftovers()).toEqual([]);
  });

  it("discovers each data file under the path as a stream with DuckDB's types", async () => {
    const catalog = await discoverFiles(files, ALL_EXTENSIONS);
    const names = catalog.streams.map((s) => s.name).sort();
    expect(names).toEqual(["2024/a.csv", "2024/b.csv", "array.json", "events.jsonl", "items.parquet", "people.csv"]);
    const items = catalog.streams.find((s) => s.name === "items.parquet")!;
    expect(Object.keys(items.json_schema.properties as object)).toEqual(["id", "label", "big", "price"]);
    expect(await leftovers()).toEqual([]);
  });

  it("streams a read in batches, incrementally from a cursor", async () => {
    const batches: number[] = [];
    for await (const rows of readFiles(files, {
      query: "SELECT id, label FROM 'items.parquet'",
      batchSize: 300,
      cursorField: "id",
      cursorValue: "101",
    }))
      batches.push(rows.length);
    expect(batches).toEqual([300, 300, 300]);
    expect(await leftovers()).toEqual([]);
  });

  it("removes the copies when the reader stops early and when the query fails", async () => {
    for await (const rows of readFiles(files, { query: "SELECT * FROM 'items.parquet'", batchSize: 10 })) {
      expect(rows).toHaveLength(10);
      break;
    }
    expect(await leftovers()).toEqual([]);
    await expect(queryFiles(files, "SELECT nope FROM 'people.csv'", 10)).rejects.toThrow(/nope/);
    expect(await leftovers()).toEqual([]);
    const controller = new AbortController();
    const read = readFiles(files, { query: "SELECT * FROM 'items.parquet'", batchSize: 10, signal: controller.signal });
    await read.next();
    controller.abort();
    await expect(read.next()).rejects.toThrow(/stopped/);
    expect(await leftovers()).toEqual([]);
  });

  it("refuses files outside the copies: absolute paths, relative escapes, functions, links", async () => {
    for (const sql of [
      "SELECT * FROM '/etc/passwd'",
      "SELECT * FROM read_csv('/etc/passwd')",
      "SELECT * FROM read_text('/etc/hostname')",
      "SELECT * FROM '../../../../../../etc/passwd'",
      `SELECT * FROM read_csv('${path.join(store, "other", "elsewhere.csv")}')`,
      "SELECT * FROM glob('/*')",
    ]) {
      await expect(queryFiles(files, sql, 10), sql).rejects.toThrow(/disabled|not allowed|No files found|a model reads only|does not exist/i);
    }
    await expect(queryFiles(files, "COPY (SELECT 1) TO '/tmp/x.csv'", 10)).rejects.toThrow(/SELECT/);
    expect(await leftovers()).toEqual([]);
  });

  it("caps what one operation copies", async () => {
    await writeFile(path.join(store, "exports", "big.csv"), `id,pad\n${"1,".padEnd(1024 * 1024 + 10, "x")}\n`);
    process.env.FILES_MAX_DOWNLOAD_MB = "1";
    try {
      await expect(queryFiles(files, "SELECT count(*) FROM 'big.csv'", 1)).rejects.toThrow(/larger than the 1 MB .*FILES_MAX_DOWNLOAD_MB/);
      expect(await leftovers()).toEqual([]);
    } finally {
      delete process.env.FILES_MAX_DOWNLOAD_MB;
      await rm(path.join(store, "exports", "big.csv"));
    }
  });
});

describe("writing rows", () => {
  it("writes CSV with a header from the declared columns and exact values", async () => {
    const file = await writeRowsFile(
      [
        { id: 1, name: 'a "quoted", name', ok: true, tags: ["x"], none: null },
        { id: 2, name: "line\nbreak", ok: false, extra: 12345678901234567890n },
      ],
      "csv",
      { columns: ["id", "name"] },
    );
    try {
      expect(await readFile(file.path, "utf8")).toBe(
        'id,name,ok,tags,none,extra\n1,"a ""quoted"", name",true,"[""x""]",,\n2,"line\nbreak",false,,,12345678901234567890\n',
      );
      expect(file).toMatchObject({ rows: 2, contentType: "text/csv; charset=utf-8" });
    } finally {
      await file.remove();
    }
  });

  it("writes JSON lines", async () => {
    const file = await writeRowsFile([{ id: 1 }, { id: 2, nested: { a: [1] } }], "jsonl");
    try {
      expect(await readFile(file.path, "utf8")).toBe('{"id":1}\n{"id":2,"nested":{"a":[1]}}\n');
    } finally {
      await file.remove();
    }
    expect(await leftovers()).toEqual([]);
  });
});
