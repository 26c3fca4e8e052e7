// Imported first by bench/run.ts: fixed secrets (the bench encrypts connector configurations the
// worker must decrypt) and quiet logs, before any module reads them.
export const BENCH_ENV = {
  ENCRYPTION_KEY: "bench-encryption-key-0123456789abcdef",
  JWT_SECRET: "bench-jwt-secret-0123456789abcdef0123",
  NEXT_TELEMETRY_DISABLED: "1",
};
Object.assign(process.env, BENCH_ENV);
process.env.LOG_LEVEL ??= "warn";
