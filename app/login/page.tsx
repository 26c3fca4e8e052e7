import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { currentSession } from "@/lib/auth/next-auth";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  if (await currentSession()) redirect("/dashboard");
  const callbackUrl = typeof params.callbackUrl === "string" ? params.callbackUrl : undefined;
  return <LoginForm callbackUrl={callbackUrl} expired={params.expired === "1"} />;
}
