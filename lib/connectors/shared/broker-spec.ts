// The connection-specification fields every event-stream destination shares (shared/broker.ts reads
// them): where the broker is, who connects, and how records are sent. Connector-specific fields go
// between the two groups (orders 3 to 9).

/** url, username and password (orders 0-2). The URL may name a user, never a password. */
export function brokerConnectionFields(
  example: string,
  schemes: [string, string],
  passwordTitle = "Password",
) {
  return {
    url: {
      type: "string",
      title: "URL",
      description: `Where the broker listens, e.g. ${example} (${schemes[1]}:// for TLS). Put the password in its own field.`,
      // The scheme, then at most a user (no user:password@: it would be shown in the clear), the host
      // and port, and a path.
      pattern: `^(${schemes[0]}|${schemes[1]})://([^/:@]*@)?[^/@]*(/.*)?$`,
      maxLength: 2048,
      order: 0,
    },
    username: {
      type: "string",
      title: "Username",
      description: "User to connect as, when the broker asks for one.",
      maxLength: 256,
      order: 1,
    },
    password: {
      type: "string",
      title: passwordTitle,
      description: "Stored encrypted and masked when shown.",
      secret: true,
      multiwoven_secret: true,
      maxLength: 4096,
      order: 2,
    },
  };
}

/** timeout, batch_size and rate_limit_per_second (orders 10-12). */
export const BROKER_SENDING_FIELDS = {
  timeout: {
    type: "integer",
    title: "Timeout (seconds)",
    description: "How long to wait for the connection and for the broker to acknowledge each message.",
    minimum: 1,
    maximum: 120,
    default: 10,
    order: 10,
  },
  batch_size: {
    type: "integer",
    title: "Batch size",
    description: "Records handed to the broker at a time (each is its own message, acknowledged on its own).",
    minimum: 1,
    maximum: 10000,
    default: 500,
    order: 11,
  },
  rate_limit_per_second: {
    type: "integer",
    title: "Rate limit (messages per second)",
    description: "At most this many messages per second across all workers; 0 for no limit.",
    minimum: 0,
    maximum: 1000000,
    default: 0,
    order: 12,
  },
};

/** A name template's field (stream key, routing key, subject, topic). */
export function nameTemplateField(
  title: string,
  description: string,
  order: number,
  extra: Record<string, unknown> = {},
) {
  return { type: "string", title, description, maxLength: 1024, order, ...extra };
}
