// Imported first by bench/run.ts: fixed secrets (the bench encrypts connector configurations the
// worker must decrypt), quiet logs, and loopback targets allowed (its databases and HTTP sink are
// on this machine), before any module reads them. Child processes inherit process.env.
export const BENCH_ENV = {
  ENCRYPTION_KEY: "bench-encryption-key-0123456789abcdef",
  JWT_SECRET: "bench-jwt-secret-0123456789abcdef0123",
  NEXT_TELEMETRY_DISABLED: "1",
  OUTBOUND_ALLOW_PRIVATE: "127.0.0.1,::1",
};
Object.assign(process.env, BENCH_ENV);
process.env.LOG_LEVEL ??= "warn";
