import type { Metadata } from "next";
import { ConnectorWizard } from "@/components/connectors/connector-wizard";

export const metadata: Metadata = { title: "New source" };

export default function Page() {
  return <ConnectorWizard type="source" />;
}
