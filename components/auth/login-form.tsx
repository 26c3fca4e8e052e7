"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { InlineError, LoadingState } from "@/components/ui/states";
import { safeCallbackPath } from "@/lib/auth/callback-url";
import { signInErrorMessage } from "@/lib/auth/sign-in-error";
import { loginSchema } from "@/lib/validation/auth";
import { AuthCard } from "./auth-card";

export function LoginForm({ callbackUrl, expired }: { callbackUrl?: string; expired?: boolean }) {
  const router = useRouter();
  const [checking, setChecking] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ resolver: zodResolver(loginSchema), defaultValues: { email: "", password: "" } });
  const { errors, isSubmitting } = form.formState;

  // First run: with no user at all, the only useful thing is creating the first admin.
  useEffect(() => {
    let cancelled = false;
    fetch("/api/v1/setup", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((body) => {
        if (cancelled) return;
        if (body?.data?.needs_setup) router.replace("/setup");
        else setChecking(false);
      })
      .catch(() => !cancelled && setChecking(false));
    return () => {
      cancelled = true;
    };
  }, [router]);

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    const res = await signIn("credentials", { email: values.email, password: values.password, redirect: false });
    if (!res || res.error || !res.ok) {
      // Wrong credentials, throttling, an outage and a server error each have their own sentence.
      setError(signInErrorMessage(res?.error));
      return;
    }
    // Only paths inside the console may be returned to after signing in.
    router.replace(safeCallbackPath(callbackUrl, window.location.origin));
    router.refresh();
  });

  if (checking) return <LoadingState label="Loading…" />;

  return (
    <AuthCard title="Sign in" subtitle="Sign in to manage your sources, models and syncs.">
      {expired && (
        <p role="status" className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Your session has ended. Sign in again to continue.
        </p>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <Field label="Email" error={errors.email?.message ? `Email ${errors.email.message}` : undefined}>
          {(p) => <Input {...p} type="email" autoComplete="username" autoFocus {...form.register("email")} />}
        </Field>
        <Field label="Password" error={errors.password?.message ? `Password ${errors.password.message}` : undefined}>
          {(p) => <Input {...p} type="password" autoComplete="current-password" {...form.register("password")} />}
        </Field>
        <InlineError message={error} />
        <Button type="submit" className="w-full" loading={isSubmitting}>
          Sign in
        </Button>
      </form>
      <p className="mt-4 text-center text-sm">
        <Link href="/forgot-password" className="text-indigo-600 hover:underline">
          Forgot password?
        </Link>
      </p>
    </AuthCard>
  );
}
