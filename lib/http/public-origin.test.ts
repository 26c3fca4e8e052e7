// The origin links and icon URLs are built on: the Host the client used, or a trusted proxy's.
import { afterEach, describe, expect, it } from "vitest";
import { publicUrl } from "./handler";
import { absoluteUrl, withPublicOrigin } from "./public-origin";

const at = (headers: Record<string, string>) => publicUrl(new Request("http://127.0.0.1:3103/api/v1/connectors?type=source", { headers }));
const saved = process.env.TRUST_PROXY;
afterEach(() => {
  if (saved === undefined) delete process.env.TRUST_PROXY;
  else process.env.TRUST_PROXY = saved;
});

describe("publicUrl", () => {
  it("takes the Host header, its port included or the scheme's default", () => {
    expect(at({ host: "sync.example.test:8443" }).origin).toBe("http://sync.example.test:8443");
    expect(at({ host: "sync.example.test" }).href).toBe("http://sync.example.test/api/v1/connectors?type=source");
    expect(at({ host: "evil.example/<x>" }).origin).toBe("http://127.0.0.1:3103");
  });

  it("believes forwarded host and protocol only with TRUST_PROXY=1", () => {
    const proxied = { host: "127.0.0.1:3103", "x-forwarded-host": "etl.example.org", "x-forwarded-proto": "https" };
    process.env.TRUST_PROXY = "0";
    expect(at(proxied).origin).toBe("http://127.0.0.1:3103");
    process.env.TRUST_PROXY = "1";
    expect(at(proxied).origin).toBe("https://etl.example.org");
    expect(at({ ...proxied, "x-forwarded-host": "etl.example.org:8443" }).origin).toBe("https://etl.example.org:8443");
  });
});

describe("absoluteUrl", () => {
  it("prefixes paths with the request's public origin, and leaves them alone outside a request", () => {
    expect(absoluteUrl("/icons/http.svg")).toBe("/icons/http.svg");
    expect(withPublicOrigin("https://etl.example.org", () => absoluteUrl("/icons/http.svg"))).toBe("https://etl.example.org/icons/http.svg");
    expect(withPublicOrigin("https://etl.example.org", () => absoluteUrl("https://cdn.example/x.svg"))).toBe("https://cdn.example/x.svg");
    expect(withPublicOrigin("https://etl.example.org", () => absoluteUrl("//other.example/x.svg"))).toBe("//other.example/x.svg");
  });

  it("answers each request with its own origin when requests of several origins interleave", async () => {
    const icon = (origin: string) =>
      withPublicOrigin(origin, async () => {
        const first = absoluteUrl("/icons/http.svg");
        await new Promise((resolve) => setImmediate(resolve));
        return [first, absoluteUrl("/icons/http.svg"), absoluteUrl("/icons/postgresql.svg")];
      });
    const [a, b] = await Promise.all([icon("https://a.example"), icon("http://b.example:8080")]);
    expect(a).toEqual(["https://a.example/icons/http.svg", "https://a.example/icons/http.svg", "https://a.example/icons/postgresql.svg"]);
    expect(b).toEqual(["http://b.example:8080/icons/http.svg", "http://b.example:8080/icons/http.svg", "http://b.example:8080/icons/postgresql.svg"]);
  });
});
