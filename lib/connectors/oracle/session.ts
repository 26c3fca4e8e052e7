// Opening Oracle sessions for the connectors: the outbound policy's early refusal, then the driver.
import type { Row } from "../types";
import { assertHostAllowed } from "@/lib/net/policy";
import { ConnectorError } from "../shared/errors";
import type { OracleDriver, OracleSession } from "./driver";
import { oracleSettings, type OracleSettings } from "./settings";

export async function openSession(driver: OracleDriver, s: OracleSettings): Promise<OracleSession> {
  // A clear refusal before any work; the driver connects to the address the policy resolved (driver.ts).
  await assertHostAllowed(s.host, undefined, { database: s.service });
  return driver.open(s);
}

export async function withSession<T>(driver: OracleDriver, config: Row, fn: (session: OracleSession, s: OracleSettings) => Promise<T>): Promise<T> {
  const s = oracleSettings(config);
  const session = await openSession(driver, s);
  try {
    return await fn(session, s);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** `"NAME"`: Oracle names are used exactly as discovered (usually upper case). */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000") || name.includes('"')) throw new ConnectorError(`Oracle names cannot contain double quotes or NUL characters: ${JSON.stringify(name)}.`);
  return `"${name}"`;
}

/** A check's sentence: the server's version and the owner's existence. */
export async function checkSession(session: OracleSession, s: OracleSettings): Promise<{ ok: boolean; details: string }> {
  const { rows } = await session.execute("SELECT COUNT(*) AS N FROM ALL_USERS WHERE USERNAME = :1", [s.owner]);
  if (Number(rows[0]?.N ?? 0) === 0) return { ok: false, details: `Connected, but there is no schema (owner) "${s.owner}" visible to user "${s.user}".` };
  return { ok: true, details: `Connected to Oracle Database ${session.serverVersion} at ${s.host}:${s.port}, service "${s.service}", schema "${s.owner}".` };
}
