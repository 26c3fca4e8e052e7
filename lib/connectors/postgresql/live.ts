// Live syncs, the replication side: the sync's publication and slot (named after the sync's id),
// the slot's exported snapshot for the backfill, and its changes as micro-batches of keys. The
// connection goes through the net policy like every other (clientConfig's guarded socket).
import pg from "pg";
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from "pg-logical-replication";
import { liveSlotName, lsnValue, type LiveChanges, type LiveLag, type LiveModel, type LiveSlot, type LiveSource, type LiveStream } from "../live";
import { jsonSafeValue } from "../shared/sql";
import { ConnectorError } from "../shared/errors";
import type { Row } from "../types";
import { clientConfig, described, jsonSafeTypes, pgSettings, quoteIdent, withClient, type PgSettings } from "./connection";
import { checkLive, liveKeyReader } from "./live-check";

/** Keys buffered before the stream stops reading from the server until the engine takes some. */
const BUFFERED_KEYS = 50_000;

/** A replication session: no client-side query timer (the stream is one long command), no statement timeout. */
function replicationConfig(s: PgSettings): pg.ClientConfig {
  const config = clientConfig(s, { clientSideTimeout: false });
  return { ...config, statement_timeout: undefined };
}

/** pgoutput with every value kept as the server's text: keys are parsed like the reads parse them. */
class TextPgoutput extends PgoutputPlugin {
  override parse(buffer: Buffer): Pgoutput.Message {
    const message = super.parse(buffer);
    if (message.tag === "relation") for (const column of message.columns) column.parser = (raw: unknown) => raw;
    return message;
  }
}

async function open(config: Row, syncId: number, model: LiveModel): Promise<LiveSlot> {
  const check = await checkLive(config, model);
  if (!check.ok) throw new ConnectorError(check.reason);
  const name = liveSlotName(syncId);
  // A slot left by a backfill that did not finish is of no use: its snapshot died with its session.
  await drop(config, syncId);
  await described(config, () => withClient(config, (c) => c.query(`CREATE PUBLICATION ${quoteIdent(name)} FOR TABLE ${check.table}`)));
  const s = pgSettings(config);
  const client = new pg.Client({ ...replicationConfig(s), replication: "database" } as pg.ClientConfig);
  client.on("error", () => undefined);
  return described(config, async () => {
    try {
      await client.connect();
      const { rows } = await client.query<{ consistent_point: string; snapshot_name: string }>(
        `CREATE_REPLICATION_SLOT ${quoteIdent(name)} LOGICAL pgoutput EXPORT_SNAPSHOT`,
      );
      // The snapshot lives as long as this session stays idle: closed once the backfill has read.
      return { lsn: rows[0].consistent_point, snapshot: rows[0].snapshot_name, release: () => client.end().catch(() => undefined) };
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  });
}

async function exists(config: Row, syncId: number): Promise<boolean> {
  return (await lag(config, syncId)) !== null;
}

async function lag(config: Row, syncId: number): Promise<LiveLag | null> {
  return described(config, () =>
    withClient(config, async (c) => {
      const { rows } = await c.query<{ active: boolean; bytes: number | null }>(
        "SELECT active, pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::float8 AS bytes FROM pg_replication_slots WHERE slot_name = $1",
        [liveSlotName(syncId)],
      );
      return rows[0] ? { active: rows[0].active, bytes: Math.max(0, rows[0].bytes ?? 0) } : null;
    }),
  );
}

async function drop(config: Row, syncId: number): Promise<boolean> {
  const name = liveSlotName(syncId);
  return described(config, () =>
    withClient(config, async (c) => {
      let dropped = false;
      // A slot in use cannot be dropped: end the session streaming it (a worker's, which then stops) first.
      // A slot is also "in use" by a session dropping it: that one (another drop of the same sync: the
      // run's own and release.ts's may meet) is waited for, never ended.
      for (let tries = 0; tries < 50; tries++) {
        const { rows } = await c.query<{ pid: number | null; streams: boolean | null }>(
          `SELECT s.active_pid AS pid, a.backend_type = 'walsender' AS streams
             FROM pg_replication_slots s LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid WHERE s.slot_name = $1`,
          [name],
        );
        if (rows.length === 0) break;
        if (rows[0].pid !== null) {
          if (rows[0].streams) await c.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        try {
          await c.query("SELECT pg_drop_replication_slot($1)", [name]);
          dropped = true;
          break;
        } catch (err) {
          // 55006: it became active again in between; 42704: someone else dropped it.
          const code = (err as { code?: string }).code;
          if (code === "42704") break;
          if (code !== "55006") throw err;
        }
      }
      await c.query(`DROP PUBLICATION IF EXISTS ${quoteIdent(name)}`);
      return dropped;
    }),
  );
}

/** One buffered change (a key) or the end of a transaction (what may be acknowledged). */
type Event = { key: { text: string; value: unknown }; xid: number; at: number } | { lsn: string; committedAt: Date | null; at: number };

async function stream(config: Row, syncId: number, fromLsn: string): Promise<LiveStream> {
  const s = pgSettings(config);
  const name = liveSlotName(syncId);
  const from = lsnValue(fromLsn);
  const service = new LogicalReplicationService(replicationConfig(s), {
    // Acknowledged only by ack(), after the engine recorded: never by time.
    acknowledge: { auto: false, timeoutSeconds: 0 },
    flowControl: { enabled: true },
  });
  const events: Event[] = [];
  let keysBuffered = 0;
  let skipping = false;
  let inTransaction = false;
  /** The transaction being received (pgoutput's begin names it). */
  let xid = 0;
  /** Messages of changes handled so far (a heartbeat's acknowledgement waits until none is pending). */
  let dataMessages = 0;
  /** Handed out by next() and not acknowledged yet. */
  let outstanding = false;
  let acked = fromLsn;
  let failure: unknown;
  let closed = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const list = waiters;
    waiters = [];
    for (const w of list) w();
  };
  const waitEvent = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  const keyOf = (relation: Pgoutput.MessageRelation, tuple: Record<string, unknown> | null) => {
    const column = relation.keyColumns[0];
    const text = tuple && column !== undefined ? tuple[column] : undefined;
    if (typeof text !== "string") return;
    const typeOid = relation.columns.find((c) => c.name === column)?.typeOid ?? 25;
    // Parsed as the reads parse the key, so it matches the key the sync tracks.
    const value = jsonSafeValue((jsonSafeTypes.getTypeParser(typeOid, "text") as (v: string) => unknown)(text));
    events.push({ key: { text, value }, xid, at: Date.now() });
    keysBuffered++;
  };
  service.on("data", async (_lsn: string, message: Pgoutput.Message) => {
    dataMessages++;
    switch (message.tag) {
      case "begin":
        inTransaction = true;
        xid = message.xid;
        // A transaction that committed before the recorded position was recorded already (replayed after a crash).
        skipping = message.commitLsn !== null && lsnValue(message.commitLsn) < from;
        return;
      case "insert":
        if (!skipping) keyOf(message.relation, message.new);
        break;
      case "update":
        if (!skipping) {
          // The old key too when the key itself changed: that row is gone.
          if (message.key) keyOf(message.relation, message.key);
          keyOf(message.relation, message.new);
        }
        break;
      case "delete":
        if (!skipping) keyOf(message.relation, message.key ?? message.old);
        break;
      case "truncate":
        if (!skipping) failure ??= new ConnectorError("The table was truncated: a live sync cannot stream a TRUNCATE. Drop its slot by turning live off and on again, which backfills anew.");
        break;
      case "commit":
        inTransaction = false;
        if (!skipping && message.commitEndLsn) {
          // Commits with no change between them are one: a flood of empty transactions holds one event.
          const last = events.at(-1);
          if (last && !("key" in last)) Object.assign(last, { lsn: message.commitEndLsn, committedAt: commitTime(message.commitTime) });
          else events.push({ lsn: message.commitEndLsn, committedAt: commitTime(message.commitTime), at: Date.now() });
        }
        skipping = false;
        break;
      default:
        return;
    }
    wake();
    // Back-pressure: the socket stays paused while the engine has this much to take.
    while (keysBuffered > BUFFERED_KEYS && !closed && failure === undefined) await waitEvent(1000);
  });
  service.on("heartbeat", (lsn: string, _at: number, shouldRespond: boolean) => {
    if (shouldRespond) void service.acknowledge(acked).catch(() => undefined);
    // Nothing in hand and nothing unrecorded: the slot may pass the WAL that held nothing for us. Judged
    // once the changes received before this heartbeat are handled: the library queues changes (flow
    // control) but emits heartbeats at once, so a heartbeat overtakes changes still in its queue, and
    // acknowledging it then let a killed worker's successor skip them (found by the live kill test).
    const seen = dataMessages;
    setImmediate(() => {
      const idle = !closed && seen === dataMessages && !outstanding && events.length === 0 && !inTransaction && lsnValue(lsn) > lsnValue(acked);
      if (!idle) return;
      acked = lsn;
      void service.acknowledge(acked).catch(() => undefined);
    });
  });
  service.on("error", (err: unknown) => {
    failure ??= err;
    wake();
  });
  service.subscribe(new TextPgoutput({ protoVersion: 1, publicationNames: [name] }), name, fromLsn).catch((err: unknown) => {
    if (!closed) failure ??= err;
    wake();
  });
  const fail = () => {
    if (failure !== undefined) throw failure instanceof ConnectorError ? failure : new ConnectorError(`The live stream stopped: ${(failure as Error).message ?? String(failure)}`);
  };

  const next = async (o: { maxKeys: number; maxWaitMs: number; signal: AbortSignal }): Promise<LiveChanges | null> => {
    const onAbort = () => wake();
    o.signal.addEventListener("abort", onAbort);
    try {
      const until = Date.now() + o.maxWaitMs;
      while (events.length === 0 && failure === undefined && !o.signal.aborted && Date.now() < until) await waitEvent(until - Date.now());
      fail();
      if (events.length === 0 || o.signal.aborted) return null;
      // A micro-batch closes at most maxWaitMs after its first change, or once it holds maxKeys keys.
      const closes = events[0].at + o.maxWaitMs;
      while (keysBuffered < o.maxKeys && failure === undefined && !o.signal.aborted && Date.now() < closes) await waitEvent(closes - Date.now());
      fail();
      return take(o.maxKeys);
    } finally {
      o.signal.removeEventListener("abort", onAbort);
    }
  };
  /** Up to maxKeys distinct keys; the batch may acknowledge the last transaction it ends. */
  const take = (maxKeys: number): LiveChanges => {
    const keys = new Map<string, { text: string; value: unknown }>();
    const xids = new Set<number>();
    let lsn = acked;
    let committedAt: Date | null = null;
    let changes = 0;
    let taken = 0;
    for (; taken < events.length; taken++) {
      const e = events[taken];
      if ("key" in e) {
        if (keys.size >= maxKeys && !keys.has(e.key.text)) break;
        keys.set(e.key.text, e.key);
        xids.add(e.xid);
        changes++;
      } else {
        lsn = e.lsn;
        committedAt = e.committedAt;
      }
    }
    events.splice(0, taken);
    keysBuffered -= changes;
    outstanding = true;
    wake();
    return { keys: [...keys.values()], lsn, changes, committedAt, xids: [...xids] };
  };

  return {
    next,
    async ack(lsn: string) {
      if (lsnValue(lsn) > lsnValue(acked)) acked = lsn;
      outstanding = false;
      if (!closed) await service.acknowledge(acked).catch(() => undefined);
    },
    async close() {
      closed = true;
      wake();
      await service.destroy().catch(() => undefined);
    },
  };
}

/** pgoutput's commit time, as pg-logical-replication gives it: microseconds since 1970 (it adds PostgreSQL's 2000 epoch itself). */
function commitTime(value: unknown): Date | null {
  if (typeof value !== "bigint") return null;
  return new Date(Number(value / 1000n));
}

export const postgresqlLive: LiveSource = { check: checkLive, open, stream, keyReader: liveKeyReader, exists, lag, drop };
