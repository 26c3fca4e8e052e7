import type { Metadata } from "next";
import { AlertSubscriptionLink } from "@/components/auth/alert-subscription";

export const metadata: Metadata = { title: "Stop alert mails" };
export const dynamic = "force-dynamic";

// The unsubscribe link of an alert mail: /alert-subscription/unsubscribe?token=…
export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const token = (await searchParams).token;
  return <AlertSubscriptionLink action="unsubscribe" token={typeof token === "string" ? token : ""} />;
}
