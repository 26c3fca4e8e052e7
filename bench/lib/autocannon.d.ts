// The part of autocannon 8's programmatic API the bench uses (the package ships no types).
declare module "autocannon" {
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    method?: string;
    timeout?: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats?: Record<string, { count: number }>;
    duration: number;
  }
  /** A running load: a promise of the result that also reports every answer as it comes. */
  export interface Instance extends Promise<Result> {
    on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    on(event: "reqError", listener: (error: Error) => void): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
