// Connector categories as the reference's catalogue names them (each connector's meta.json), and the
// two groups its list filters know: `data` and `ai_ml` (the reference server's DATA_CATEGORIES and
// AI_ML_CATEGORIES). A filter may also name one category exactly, as the reference's does.

/** Reference categories, then ours for connectors the reference lacks (brokers). */
export const CONNECTOR_CATEGORY_NAMES = [
  "Data Warehouse",
  "Data Lake",
  "Database",
  "File Storage",
  "HTTP",
  "CRM",
  "Marketing Automation",
  "Ad-Tech",
  "Team Collaboration",
  "Productivity Tools",
  "Payments",
  "Customer Support",
  "Retail",
  "AI Model",
  "Message Broker",
] as const;
export type ConnectorCategoryName = (typeof CONNECTOR_CATEGORY_NAMES)[number];

export type ConnectorGroup = "data" | "ai_ml";

/** The list-filter group a category belongs to: model endpoints are `ai_ml`, everything else `data`. */
export function connectorGroup(category: ConnectorCategoryName): ConnectorGroup {
  return category === "AI Model" ? "ai_ml" : "data";
}

/** Whether a definition of `category` passes a list filter naming a group or a category (any case). */
export function matchesCategoryFilter(category: ConnectorCategoryName, filter: string): boolean {
  const wanted = filter.toLowerCase();
  return wanted === connectorGroup(category) || wanted === category.toLowerCase();
}
