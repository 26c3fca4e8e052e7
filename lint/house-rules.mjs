// Rules of this house that ESLint does not ship (docs/conventions.md 11, 12 and 13).

/** Documents that live beside the repository, not in it: a reader of the code cannot open them. */
const OUTSIDE_DOCUMENTS = /\b(?:behaviou?r|interface|review-\d{4}-\d{2}-\d{2})\.md\b|\bshared\/(?:spec|reference|design)\//;

/** @type {import("eslint").Rule.RuleModule} */
const noOutsideCitations = {
  meta: {
    type: "suggestion",
    docs: { description: "Comments and texts cite documents in this repository only." },
    messages: {
      outside:
        "This cites a document outside the repository ({{found}}); point at docs/ (architecture.md, coming-from-multiwoven.md) or say it in place.",
    },
    schema: [],
  },
  create(context) {
    const check = (node, text) => {
      const found = OUTSIDE_DOCUMENTS.exec(text);
      if (found) context.report({ node, messageId: "outside", data: { found: found[0] } });
    };
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) check(comment, comment.value);
      },
      Literal(node) {
        if (typeof node.value === "string") check(node, node.value);
      },
      TemplateElement(node) {
        check(node, node.value.raw);
      },
    };
  },
};

/** Modules that send HTTP themselves; lib/net wraps them behind the outbound guard. */
const HTTP_CLIENTS = new Set(["undici", "node-fetch", "axios", "got", "ws"]);
const NODE_HTTP = new Set(["http", "https", "node:http", "node:https", "http2", "node:http2"]);
/** What node:http(s) offers that is no client: a server's types and classes. */
const NODE_HTTP_SERVER_SIDE = new Set(["IncomingMessage", "ServerResponse", "Server", "createServer", "STATUS_CODES", "IncomingHttpHeaders", "OutgoingHttpHeaders"]);

/** @type {import("eslint").Rule.RuleModule} */
const outboundHttpHome = {
  meta: {
    type: "problem",
    docs: { description: "Outbound HTTP goes through lib/net (the outbound guard, sendHttp), nowhere else." },
    messages: {
      client: "Outbound HTTP lives in lib/net: send with sendHttp (lib/net/http.ts), stream with lib/net/stream.ts, or give an SDK guardedSdkAgents; not `{{what}}` here.",
    },
    schema: [],
  },
  create(context) {
    const report = (node, what) => context.report({ node, messageId: "client", data: { what } });
    const checkSource = (node, source) => {
      if (typeof source !== "string") return;
      if (HTTP_CLIENTS.has(source)) report(node, source);
    };
    return {
      ImportDeclaration(node) {
        if (node.importKind === "type") return;
        const source = node.source.value;
        checkSource(node, source);
        if (!NODE_HTTP.has(source)) return;
        for (const spec of node.specifiers) {
          if (spec.type === "ImportSpecifier" && (spec.importKind === "type" || NODE_HTTP_SERVER_SIDE.has(spec.imported.name))) continue;
          report(spec, `${source} ${spec.type === "ImportSpecifier" ? spec.imported.name : spec.local.name}`);
        }
      },
      ImportExpression(node) {
        if (node.source.type === "Literal") checkSource(node, node.source.value);
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === "Identifier" && callee.name === "require" && node.arguments[0]?.type === "Literal") {
          const source = node.arguments[0].value;
          checkSource(node, source);
          if (NODE_HTTP.has(source)) report(node, `require("${source}")`);
          return;
        }
        // The global fetch: a local function or parameter called fetch is someone else's.
        const global =
          (callee.type === "Identifier" && callee.name === "fetch" && isGlobal(context.sourceCode.getScope(node), "fetch")) ||
          (callee.type === "MemberExpression" && callee.object.type === "Identifier" && ["globalThis", "window", "self"].includes(callee.object.name) && callee.property.type === "Identifier" && callee.property.name === "fetch");
        if (global) report(node, "fetch()");
      },
    };
  },
};

function isGlobal(scope, name) {
  for (let s = scope; s; s = s.upper) {
    const found = s.set.get(name);
    if (found) return found.defs.length === 0;
  }
  return true;
}

/** Raw query calls of the application database that take a row type. */
const RAW_QUERIES = new Set(["query", "queryRows", "$queryRaw", "$queryRawUnsafe"]);
const calleeName = (callee) => (callee.type === "Identifier" ? callee.name : callee.type === "MemberExpression" && callee.property.type === "Identifier" ? callee.property.name : undefined);

/** @type {import("eslint").Rule.RuleModule} */
const typedSql = {
  meta: {
    type: "problem",
    docs: { description: "SQL of the application database is built with Kysely (lib/db/kysely.ts), typed by the schema: no raw query with a hand-written row type." },
    messages: {
      raw: "`{{name}}<…>` types a raw query's rows by hand: a renamed column breaks nothing at build time. Build it with Kysely (lib/db/kysely.ts: sqlBuilder, viaClient, selectRows); COPY and binary wire paths live in lib/db/pg-wire.",
    },
    schema: [],
  },
  create(context) {
    const check = (node, callee) => {
      const name = calleeName(callee);
      if (name && RAW_QUERIES.has(name) && (node.typeArguments ?? node.typeParameters)) context.report({ node, messageId: "raw", data: { name } });
    };
    return {
      CallExpression: (node) => check(node, node.callee),
      TaggedTemplateExpression: (node) => check(node, node.tag),
    };
  },
};

export const houseRules = { rules: { "no-outside-citations": noOutsideCitations, "outbound-http-home": outboundHttpHome, "typed-sql": typedSql } };
