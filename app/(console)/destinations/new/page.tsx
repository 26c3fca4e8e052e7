import type { Metadata } from "next";
import { ConnectorWizard } from "@/components/connectors/connector-wizard";

export const metadata: Metadata = { title: "New destination" };

export default function Page() {
  return <ConnectorWizard type="destination" />;
}
