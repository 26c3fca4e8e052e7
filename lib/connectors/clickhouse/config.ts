// The ClickHouse source's typed configuration, read from the reference's fields (url, username,
// password, database) and our optional timeouts. The adapter reads settings only through here.
import type { ConfigurationProblem, Row } from "../types";
import { optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";

export interface ClickhouseConfig {
  /** Origin and path of the HTTP interface, e.g. `https://host:8443/` (never with user info). */
  endpoint: string;
  /** host:port, for sentences. */
  where: string;
  username: string;
  password: string;
  database: string;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

const USAGE = "Give the address of ClickHouse's HTTP interface, e.g. https://host:8443 or http://host:8123.";

/**
 * The endpoint a stored `url` means. Multiwoven users store full URLs (`https://….clickhouse.cloud:8443`)
 * or, as its form's example shows, a bare host: a bare ClickHouse Cloud host gets https on 8443,
 * any other bare host http on 8123 (a bare host:8443 or :443 gets https). Throws ConnectorError.
 */
export function clickhouseEndpoint(raw: string): URL {
  const text = raw.trim();
  if (text === "") throw new ConnectorError(`The url is empty. ${USAGE}`);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `http://${text}`);
  } catch {
    throw new ConnectorError(`"${text}" is not a valid URL. ${USAGE}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConnectorError(`The url uses ${url.protocol.replace(":", "")}://; this connector speaks ClickHouse's HTTP interface. ${USAGE}`);
  }
  if (url.username || url.password) {
    throw new ConnectorError("The url must not carry a username or password: put them in the username and password fields.");
  }
  if (!hasScheme) {
    // URL drops a scheme's default port (`host:80`), so the port is read from the text itself.
    const port = /^(?:\[[^\]]*\]|[^/:]*):(\d+)/.exec(text)?.[1];
    const tls = /\.clickhouse\.cloud$/i.test(url.hostname) || port === "8443" || port === "443";
    url = new URL(`${tls ? "https" : "http"}://${url.host.replace(/:\d+$/, "")}:${port ?? (tls ? "8443" : "8123")}${url.pathname}`);
  }
  url.search = "";
  url.hash = "";
  return url;
}

/** Save-time problems of the url field (pure: no network). */
export function urlProblems(value: unknown): ConfigurationProblem[] {
  if (typeof value !== "string") return [];
  try {
    clickhouseEndpoint(value);
    return [];
  } catch (err) {
    const message = (err as Error).message;
    return [{ path: "url", message: `cannot be used: ${message}` }];
  }
}

export function clickhouseConfig(config: Row): ClickhouseConfig {
  const url = clickhouseEndpoint(stringField(config, "url"));
  return {
    endpoint: url.toString(),
    where: url.host,
    username: stringField(config, "username"),
    password: optionalString(config, "password") ?? "",
    database: stringField(config, "database"),
    connectTimeoutMs: secondsToMs(config, "connect_timeout", 10),
    queryTimeoutMs: secondsToMs(config, "query_timeout", 60),
  };
}

export function tryClickhouseConfig(config: Row): ClickhouseConfig | undefined {
  try {
    return clickhouseConfig(config);
  } catch {
    return undefined;
  }
}
