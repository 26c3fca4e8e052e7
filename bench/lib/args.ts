// Command-line flags of `npm run bench`.
export type Section = "sync" | "mariadb" | "clickhouse" | "http" | "live" | "api" | "mapping" | "scale";
const SECTIONS: readonly string[] = ["sync", "mariadb", "clickhouse", "http", "live", "api", "mapping", "scale"];

export interface BenchArgs {
  rows: number;
  smoke: boolean;
  only?: Section;
  json: boolean;
  /** Keep the bench databases afterwards (to look at them). */
  keep: boolean;
  /** Write a V8 CPU profile of the worker into bench/results. */
  cpuProf: boolean;
  /** Sync section: stop after this run (with --cpu-prof, a profile of the runs up to it). */
  stopAfter?: "full" | "nochange" | "changed";
  /** Scale section: syncs per round and rows per sync (default 300 × 10,000; --smoke 12 × 200). */
  scaleSyncs?: number;
  scaleRows?: number;
}

const USAGE = `npm run bench -- [--rows N] [--smoke] [--only sync|mariadb|clickhouse|http|live|api|mapping|scale] [--json] [--keep] [--cpu-prof]
  [--scale-syncs N] [--scale-rows N]
  --rows N      rows of the source table for the sync figures, records of the API section's big run (default 100000)
  --smoke       shortest possible run of every figure (CI: --rows 10000 --smoke)
  --only S      one section: sync, mariadb, clickhouse, http, live (latency and throughput of a live sync; skipped
                at --smoke unless it is the --only), api, mapping (the JSON path's map stage alone, no database)
                or scale (1, 2, 3 worker processes on one application database)
  --json        also write bench/results/<timestamp>.json
  --keep        keep the ds_bench_* databases at the end
  --cpu-prof    run the worker (api: the web server) with --cpu-prof (profile in bench/results)
  --stop-after R  sync section: stop after the full sync (full), the no-change re-run (nochange) or
                the 1%-changed re-run (changed), for a profile of those runs alone
  --scale-syncs N  scale section: syncs per round (default 300; --smoke 12)
  --scale-rows N   scale section: rows per sync (default 10000; --smoke 200); --rows is the other sections' table`;

export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { rows: 100_000, smoke: false, json: false, keep: false, cpuProf: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === "--rows") {
      args.rows = Number(value().replace(/_/g, ""));
      if (!Number.isInteger(args.rows) || args.rows < 100) throw new Error(`--rows must be a whole number of at least 100\n${USAGE}`);
    } else if (a === "--smoke") args.smoke = true;
    else if (a === "--json") args.json = true;
    else if (a === "--keep") args.keep = true;
    else if (a === "--cpu-prof") args.cpuProf = true;
    else if (a === "--scale-syncs" || a === "--scale-rows") {
      const n = Number(value().replace(/_/g, ""));
      if (!Number.isInteger(n) || n < 1 || n > 100_000_000) throw new Error(`${a} must be a whole number of at least 1\n${USAGE}`);
      if (a === "--scale-syncs") args.scaleSyncs = n;
      else args.scaleRows = n;
    } else if (a === "--stop-after") {
      const r = value();
      if (r !== "full" && r !== "nochange" && r !== "changed") throw new Error(`--stop-after takes full, nochange or changed\n${USAGE}`);
      args.stopAfter = r;
    }
    else if (a === "--only") {
      const s = value();
      if (!SECTIONS.includes(s)) throw new Error(`--only takes sync, mariadb, clickhouse, http, live, api, mapping or scale\n${USAGE}`);
      args.only = s as Section;
    } else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`Unknown flag ${a}\n${USAGE}`);
  }
  return args;
}
