// Command-line flags of `npm run bench`.
export type Section = "sync" | "mariadb" | "clickhouse" | "http" | "api" | "mapping";
const SECTIONS: readonly string[] = ["sync", "mariadb", "clickhouse", "http", "api", "mapping"];

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
}

const USAGE = `npm run bench -- [--rows N] [--smoke] [--only sync|mariadb|clickhouse|http|api|mapping] [--json] [--keep] [--cpu-prof]
  --rows N      rows of the source table for the sync figures, records of the API section's big run (default 100000)
  --smoke       shortest possible run of every figure (CI: --rows 10000 --smoke)
  --only S      one section: sync, mariadb, clickhouse, http, api or mapping (the JSON path's map stage alone, no database)
  --json        also write bench/results/<timestamp>.json
  --keep        keep the ds_bench_* databases at the end
  --cpu-prof    run the worker (api: the web server) with --cpu-prof (profile in bench/results)
  --stop-after R  sync section: stop after the full sync (full), the no-change re-run (nochange) or
                the 1%-changed re-run (changed), for a profile of those runs alone`;

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
    else if (a === "--stop-after") {
      const r = value();
      if (r !== "full" && r !== "nochange" && r !== "changed") throw new Error(`--stop-after takes full, nochange or changed\n${USAGE}`);
      args.stopAfter = r;
    }
    else if (a === "--only") {
      const s = value();
      if (!SECTIONS.includes(s)) throw new Error(`--only takes sync, mariadb, clickhouse, http, api or mapping\n${USAGE}`);
      args.only = s as Section;
    } else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`Unknown flag ${a}\n${USAGE}`);
  }
  return args;
}
