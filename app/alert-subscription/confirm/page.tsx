import type { Metadata } from "next";
import { AlertSubscriptionLink } from "@/components/auth/alert-subscription";

export const metadata: Metadata = { title: "Confirm alert mails" };
export const dynamic = "force-dynamic";

// The confirm link of an alert mail: /alert-subscription/confirm?token=…
export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const token = (await searchParams).token;
  return <AlertSubscriptionLink action="confirm" token={typeof token === "string" ? token : ""} />;
}
