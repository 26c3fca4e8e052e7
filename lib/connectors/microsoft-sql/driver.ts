// The boundary between the Microsoft SQL destination and its driver: the connector builds SQL text
// and typed parameters and calls `run`; the real implementation below hands them to `mssql`
// (tedious). Tests put a recording fake behind the same interface, since no SQL Server runs here.
import { Socket } from "node:net";
import type { Row } from "../types";
import { connectGuarded } from "@/lib/net/policy";
import { lazyModule } from "../shared/lazy-module";
import type { MssqlSettings } from "./settings";

/** The parameter types the connector binds (tedious's type names). */
export type MssqlParamType = "NVarChar" | "Int" | "BigInt" | "Float" | "Real" | "Bit" | "VarBinary";

export interface MssqlParam {
  /** Without the `@`: `p0`, `p1`… */
  name: string;
  type: MssqlParamType;
  value: string | number | boolean | Buffer | null;
}

export interface MssqlResult {
  rows: Row[];
  /** Rows the statement touched (the sum over its statements). */
  rowsAffected: number;
}

/** One connection: statements run on it in order, so a transaction opened with SQL text spans them. */
export interface MssqlSession {
  /** Runs one batch; `signal` cancels it on the server (an attention packet). */
  run(sql: string, params?: MssqlParam[], signal?: AbortSignal): Promise<MssqlResult>;
  close(): Promise<void>;
}

export interface MssqlDriver {
  open(settings: MssqlSettings): Promise<MssqlSession>;
}

const mssqlModule = lazyModule(async () => (await import("mssql")).default);

/** The TCP socket tedious uses, connected through the outbound policy (it reaches exactly the checked address). */
function guardedConnector(s: MssqlSettings): () => Promise<Socket> {
  return () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connectGuarded(new Socket(), { host: s.host, port: s.port, database: s.database });
      socket.once("connect", () => resolve(socket.setNoDelay(true).setKeepAlive(true)));
      socket.once("error", reject);
    });
}

/** `mssql` with a pool of one connection, so that BEGIN/SAVE/COMMIT TRANSACTION span the session's statements. */
export const mssqlDriver: MssqlDriver = {
  async open(s) {
    const sql = await mssqlModule.load();
    const pool = new sql.ConnectionPool({
      server: s.host,
      port: s.port,
      database: s.database,
      user: s.user,
      password: s.password,
      connectionTimeout: s.connectTimeoutMs,
      requestTimeout: s.queryTimeoutMs,
      pool: { min: 0, max: 1 },
      options: {
        encrypt: s.encrypt,
        trustServerCertificate: s.trustServerCertificate,
        appName: "datasync",
        connector: guardedConnector(s),
      },
    });
    pool.on("error", () => undefined);
    await pool.connect();
    return {
      async run(text, params = [], signal) {
        const request = pool.request();
        for (const p of params) {
          // Text and bytes as their (max) types: one declaration whatever the value's length.
          const type = p.type === "NVarChar" ? sql.NVarChar(sql.MAX) : p.type === "VarBinary" ? sql.VarBinary(sql.MAX) : sql.TYPES[p.type]();
          request.input(p.name, type, p.value);
        }
        const cancel = () => request.cancel();
        signal?.addEventListener("abort", cancel, { once: true });
        try {
          if (signal?.aborted) throw Object.assign(new Error("Canceled."), { code: "ECANCEL" });
          const result = await request.query<Row>(text);
          return { rows: result.recordset ?? [], rowsAffected: result.rowsAffected.reduce((a, b) => a + b, 0) };
        } finally {
          signal?.removeEventListener("abort", cancel);
        }
      },
      close: () => pool.close(),
    };
  },
};
