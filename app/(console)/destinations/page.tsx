import type { Metadata } from "next";
import { ConnectorsList } from "@/components/connectors/connectors-list";

export const metadata: Metadata = { title: "Destinations" };

export default function Page() {
  return <ConnectorsList type="destination" />;
}
