"use client";
// /settings opens the first settings page the signed-in role may use.
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { LoadingState } from "@/components/ui/states";
import { useMe } from "@/lib/api-client/settings";
import { allowed, SETTINGS } from "./nav";

export function SettingsIndex() {
  const me = useMe();
  const router = useRouter();
  const permissions = me.data?.attributes.role?.policies?.permissions;
  useEffect(() => {
    if (me.data) router.replace((SETTINGS.find((s) => allowed(s, permissions)) ?? SETTINGS[SETTINGS.length - 1]).href);
  }, [me.data, permissions, router]);
  return <LoadingState />;
}
