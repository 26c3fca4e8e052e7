// Each definition the reference (Multiwoven) also has carries its name, category and sub_category as
// that connector's meta.json says (integrations/lib/multiwoven/integrations/<type>/<dir>/config/
// meta.json, v0.124). A table, not a read of the reference: it is not on every machine. Connectors
// other engineers add put their rows here too.
import { describe, expect, it } from "vitest";
import { getDefinition, listDefinitions, validateConfiguration } from "./registry";
import type { ConnectorKind } from "./types";

/** type:name → [category, sub_category] as meta.json has them (destinations have none). */
const REFERENCE: Record<string, [string, string | null]> = {
  "source:Postgresql": ["Data Warehouse", "Relational Database"],
  "source:MariaDB": ["Data Warehouse", "Relational Database"],
  "source:HttpModel": ["AI Model", "AI_ML Service"],
  "source:OpenAI": ["AI Model", "LLM"],
  "source:Anthropic": ["AI Model", "LLM"],
  "source:AwsBedrockModel": ["AI Model", "LLM"],
  "source:AwsSagemakerModel": ["AI Model", "AI_ML Service"],
  "source:VertexModel": ["AI Model", "AI_ML Service"],
  "source:DatabricksModel": ["AI Model", "AI_ML Service"],
  "source:WatsonxAi": ["AI Model", "AI_ML Service"],
  "source:GenericOpenAI": ["AI Model", "LLM"],
  "source:Snowflake": ["Data Warehouse", "Relational Database"],
  "source:Bigquery": ["Data Warehouse", "Relational Database"],
  "source:Databricks": ["Data Warehouse", "Relational Database"],
  "source:Redshift": ["Data Warehouse", "Relational Database"],
  "source:AwsAthena": ["Data Warehouse", "Relational Database"],
  "source:WatsonxData": ["Data Warehouse", "Relational Database"],
  "source:Clickhouse": ["Data Warehouse", "Relational Database"],
  "source:AmazonS3": ["Data Lake", "Relational Database"],
  "destination:AmazonS3": ["File Storage", null],
  "source:Sftp": ["File Storage", "Relational Database"],
  "destination:Sftp": ["File Storage", null],
  "source:GoogleDrive": ["File Storage", null],
  "source:Http": ["Data Warehouse", "Relational Database"],
  "source:IntuitQuickBooks": ["Data Warehouse", "Relational Database"],
  "source:Firecrawl": ["Data Warehouse", "Web Scraper"],
  "destination:Postgresql": ["Database", null],
  "destination:MariaDB": ["Database", null],
  "destination:Http": ["HTTP", null],
  "destination:Slack": ["Team Collaboration", null],
  "destination:Hubspot": ["CRM", null],
  "destination:Airtable": ["Productivity Tools", null],
  "destination:Iterable": ["Marketing Automation", null],
  "destination:Klaviyo": ["Marketing Automation", null],
  "destination:Mailchimp": ["Marketing Automation", null],
  "destination:GoogleSheets": ["Productivity Tools", null],
  "destination:SalesforceCrm": ["CRM", null],
  "destination:FacebookCustomAudience": ["Ad-Tech", null],
  "destination:MicrosoftDynamics": ["CRM", null],
  "destination:Zendesk": ["Customer Support", null],
  "destination:Stripe": ["Payments", null],
  "destination:MicrosoftExcel": ["Database", null],
  "source:Odoo": ["Database", null],
  "destination:Odoo": ["Database", null],
  "destination:AISDataStore": ["Database", null],
  "destination:MicrosoftSql": ["Database", null],
  "source:Oracle": ["Database", "Relational Database"],
  "destination:Oracle": ["Database", null],
  "source:SalesforceConsumerGoodsCloud": ["Retail", "Relational Database"],
  "destination:SalesforceConsumerGoodsCloud": ["Retail", null],
  "destination:DatabricksLakehouse": ["Database", null],
  "source:PineconeDB": ["Database", "Vector Database"],
  "source:Qdrant": ["Database", "Vector Database"],
  "destination:PineconeDB": ["Database", null],
  "destination:Qdrant": ["Database", null],
  "destination:Weaviate": ["Database", null],
};

/** Ours the reference lacks: they keep our names (and categories of ours). */
const OURS_ONLY = ["source:DuckDB", "destination:Redis", "destination:RabbitMQ", "destination:Nats", "destination:Mqtt", "destination:Braze"];

const key = (type: ConnectorKind, name: string) => `${type}:${name}`;

describe("the reference's catalogue", () => {
  it("names, categories and sub-categories are the reference's meta.json values", () => {
    for (const [id, [category, subCategory]] of Object.entries(REFERENCE)) {
      const [type, name] = id.split(":") as [ConnectorKind, string];
      const definition = getDefinition(name, type);
      expect(definition?.name, id).toBe(name);
      expect(definition?.category, id).toBe(category);
      expect(definition?.subCategory ?? null, id).toBe(subCategory);
    }
  });

  it("every definition is the reference's or one of ours it lacks", () => {
    const known = new Set([...Object.keys(REFERENCE), ...OURS_ONLY]);
    const unlisted = listDefinitions()
      .map((d) => key(d.connectorType, d.name))
      .filter((id) => !known.has(id));
    // A new connector lists itself in REFERENCE (or OURS_ONLY).
    expect(unlisted).toEqual([]);
  });

  it("our earlier names answer the same definition", () => {
    expect(getDefinition("Salesforce", "destination")).toBe(getDefinition("SalesforceCrm", "destination"));
    expect(getDefinition("salesforce", "destination")?.name).toBe("SalesforceCrm");
  });

  it("a list filter takes a group or one category, in any case", () => {
    const names = (category: string) => listDefinitions({ category }).map((d) => key(d.connectorType, d.name));
    expect(names("crm")).toEqual(expect.arrayContaining(["destination:Hubspot", "destination:SalesforceCrm"]));
    expect(names("Data Warehouse")).toEqual(expect.arrayContaining(["source:Postgresql", "source:MariaDB"]));
    expect(names("Data Warehouse")).not.toContain("destination:Postgresql");
    expect(names("AI_ML")).toEqual([
      "source:HttpModel",
      "source:OpenAI",
      "source:Anthropic",
      "source:AwsBedrockModel",
      "source:AwsSagemakerModel",
      "source:VertexModel",
      "source:DatabricksModel",
      "source:WatsonxAi",
      "source:GenericOpenAI",
    ]);
  });
});

describe("settings saved under our earlier field names still validate", () => {
  const earlier: [ConnectorKind, string, Record<string, unknown>][] = [
    ["destination", "Slack", { auth_type: "bot_token", bot_token: "xoxb-1", channel: "#alerts" }],
    ["destination", "Klaviyo", { api_key: "pk_abc" }],
    ["destination", "Salesforce", { base_url: "https://acme.my.salesforce.com", client_id: "id", client_secret: "s", external_id_field: "Ext__c" }],
    ["destination", "GoogleSheets", { service_account: '{"client_email":"a@b.c"}', spreadsheet_id: "abc", key_column: "id" }],
    ["source", "HttpModel", { url: "https://model.example.com/predict", method: "PUT" }],
    ["source", "OpenAI", { base_url: "http://127.0.0.1:11434", model: "llama3.1", response_format: "json_object" }],
  ];
  it.each(earlier)("%s %s", (type, name, config) => {
    expect(validateConfiguration(getDefinition(name, type)!, config)).toEqual([]);
  });

  it("and a reference configuration missing what it requires names the reference's field", () => {
    expect(validateConfiguration(getDefinition("Slack", "destination")!, {})).toEqual([
      { path: "api_token", message: "api_token is required" },
      { path: "channel_id", message: "channel_id is required" },
    ]);
    expect(validateConfiguration(getDefinition("Klaviyo", "destination")!, { private_api_key: "pk" })).toEqual([{ path: "public_api_key", message: "public_api_key is required" }]);
    expect(validateConfiguration(getDefinition("OpenAI", "source")!, { api_key: "sk" })).toEqual([
      { path: "model", message: "is required: name the model, or give a request_format whose JSON names it" },
    ]);
    expect(validateConfiguration(getDefinition("GoogleSheets", "destination")!, { service_account: "{}" })[0]?.path).toBe("spreadsheet_link");
  });
});
