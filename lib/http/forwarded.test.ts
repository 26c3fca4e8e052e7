import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { isLocalRequest, sanitizeForwarded } from "./forwarded";
import { PEER_HEADER, isLoopback, socketPeer, stampPeer } from "./peer";

/** Headers as our server hands them to Next: sanitized and stamped from the given socket peer. */
function served(claims: IncomingHttpHeaders, peer: string, trusted: boolean): Headers {
  const raw = { ...claims };
  sanitizeForwarded(raw, peer, trusted);
  stampPeer(raw, peer);
  return new Headers(Object.entries(raw).map(([k, v]): [string, string] => [k, String(v)]));
}

describe("forwarded headers", () => {
  it("drops forwarded host, proto and client claims unless a proxy is trusted", () => {
    const h = served(
      { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", "x-forwarded-for": "127.0.0.1" },
      "203.0.113.9",
      false,
    );
    expect(h.get("x-forwarded-host")).toBeNull();
    expect(h.get("x-forwarded-proto")).toBeNull();
    expect(h.get("x-forwarded-for")).toBe("203.0.113.9");
    const trusted = served(
      { "x-forwarded-host": "app.example", "x-forwarded-for": "198.51.100.1" },
      "127.0.0.1",
      true,
    );
    expect(trusted.get("x-forwarded-host")).toBe("app.example");
    expect(trusted.get("x-forwarded-for")).toBe("198.51.100.1");
  });

  it("judges loopback by the stamped socket peer, which a client cannot forge", () => {
    expect(isLocalRequest(served({}, "127.0.0.1", false))).toBe(true);
    expect(isLocalRequest(served({}, "::ffff:127.0.0.1", false))).toBe(true);
    expect(
      isLocalRequest(
        served({ "x-forwarded-for": "127.0.0.1", [PEER_HEADER]: "x 127.0.0.1" }, "203.0.113.9", true),
      ),
    ).toBe(false);
    // A proxy on this machine forwarding a remote client: the peer is loopback, the client is not.
    expect(isLocalRequest(served({ "x-forwarded-for": "198.51.100.1" }, "127.0.0.1", true))).toBe(false);
    // A header the server did not stamp (e.g. sent straight to `next start`) is no peer at all.
    expect(socketPeer(new Headers({ [PEER_HEADER]: "guess 127.0.0.1" }))).toBeNull();
    expect(isLoopback("127.8.9.10")).toBe(true);
    expect(isLoopback("10.0.0.1")).toBe(false);
  });
});
