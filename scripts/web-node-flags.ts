// V8 flags of the web server process (scripts/start.ts). package.json's "start" passes them to tsx
// (a test holds it to this list) and the bench starts the server with them, as `npm start` does.
//
// Young-generation semi-spaces of 64 MB instead of 16: an API list answer allocates ~0.7 MB (rows,
// objects, its JSON text and bytes), so under load the default space filled every ~100 ms while the
// data of the requests in flight was still live, and scavenging it was a quarter of the server's
// CPU. Measured with the bench's load (50 connections): GET /api/v1/syncs ~+25% requests/s, a
// records page ~+20%. The space grows to this size only under such allocation.
export const WEB_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64"];
