"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { dateTime, relativeTime } from "@/components/common/format";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { DataTable } from "@/components/ui/data-table";
import { Field, Input, Select } from "@/components/ui/field";
import { EmptyState, InlineError } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { errorMessage } from "@/lib/api-client/client";
import { useApiTokens, useCan, useCreateApiToken, useRevokeApiToken, useRoles, type ApiTokenAttributes } from "@/lib/api-client/settings";
import type { Resource } from "@/lib/api-client/types";
import { createApiTokenSchema } from "@/lib/validation/api-tokens";

type Token = Resource<ApiTokenAttributes>;
const col = createColumnHelper<Token>();

export function ApiTokensPage() {
  const [page, setPage] = useState(1);
  const tokens = useApiTokens(page);
  const canCreate = useCan("api_token", "create");
  const canRevoke = useCan("api_token", "delete");
  const revoke = useRevokeApiToken();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const columns = useMemo(
    () => [
      col.accessor((t) => t.attributes.name, { id: "name", header: "Name", cell: (i) => <span className="font-medium text-slate-900">{i.getValue()}</span> }),
      col.accessor((t) => t.attributes.role_name ?? "Same as owner", { id: "role", header: "Role" }),
      col.accessor((t) => t.attributes.user_email, { id: "owner", header: "Owner" }),
      col.accessor((t) => t.attributes.created_at, { id: "created", header: "Created", cell: (i) => relativeTime(i.getValue()) }),
      col.accessor((t) => t.attributes.last_used_at, { id: "used", header: "Last used", cell: (i) => (i.getValue() ? relativeTime(i.getValue()) : "Never") }),
      col.accessor((t) => t.attributes.expires_at, { id: "expires", header: "Expires", cell: (i) => (i.getValue() ? dateTime(i.getValue()) : "Never") }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) => (canRevoke ? <Button size="sm" variant="ghost" className="text-red-700" onClick={() => setRevoking(row.original)}>Revoke</Button> : null),
      }),
    ],
    [canRevoke],
  );
  return (
    <>
      <PageHeader
        title="API tokens"
        description="Long-lived tokens for programs: send them as Authorization: Bearer <token>."
        actions={canCreate ? <Button onClick={() => setCreating(true)}>New token</Button> : null}
      />
      <DataTable
        label="API tokens"
        columns={columns}
        data={tokens.data?.data}
        isLoading={tokens.isLoading}
        error={tokens.error}
        onRetry={() => void tokens.refetch()}
        pagination={{ page, perPage: 25, totalPages: tokens.data?.meta?.total_pages, totalCount: tokens.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(t) => t.id}
        empty={<EmptyState title="No API tokens" description="Create a token to call the API from scripts and CI." />}
      />
      {creating && <CreateTokenDialog onClose={() => setCreating(false)} />}
      <ConfirmDialog
        open={Boolean(revoking)}
        onClose={() => setRevoking(null)}
        title={`Revoke “${revoking?.attributes.name}”?`}
        description="Programs using it stop working at once."
        confirmLabel="Revoke"
        loading={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking, { onSettled: () => setRevoking(null) })}
      />
    </>
  );
}

function CreateTokenDialog({ onClose }: { onClose: () => void }) {
  const roles = useRoles();
  const create = useCreateApiToken();
  const toast = useToast();
  const [token, setToken] = useState<string | null>(null);
  const form = useForm({
    resolver: zodResolver(createApiTokenSchema),
    defaultValues: { api_token: { name: "", role_id: null, expires_at: null } },
  });
  const errors = form.formState.errors.api_token;
  const submit = form.handleSubmit((values) => create.mutate(values.api_token, { onSuccess: (t) => setToken(t.attributes.token ?? "") }));
  if (token !== null) {
    return (
      <Dialog
        open
        onClose={onClose}
        title="Copy your new token"
        description="This is the only time it is shown. Store it somewhere safe."
        footer={<Button onClick={onClose}>Done</Button>}
      >
        <label htmlFor="new-token" className="sr-only">New API token</label>
        <textarea id="new-token" readOnly rows={4} value={token} className="w-full rounded-md border border-slate-300 bg-slate-50 p-2 font-mono text-xs" onFocus={(e) => e.currentTarget.select()} />
        <Button
          className="mt-2"
          variant="secondary"
          size="sm"
          onClick={() => void navigator.clipboard?.writeText(token).then(() => toast.success("Token copied."), () => toast.error("Copy failed; select the text and copy it."))}
        >
          Copy to clipboard
        </Button>
      </Dialog>
    );
  }
  return (
    <Dialog open onClose={onClose} title="New API token">
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field label="Name" required hint="What the token is for, e.g. “CI deploys”." error={errors?.name && `Name ${errors.name.message}`}>
          {(p) => <Input {...p} autoFocus {...form.register("api_token.name")} />}
        </Field>
        <Field label="Role" hint="A narrower role for the token; it never exceeds yours.">
          {(p) => (
            <Select {...p} {...form.register("api_token.role_id", { setValueAs: (v) => (v === "" || v === null ? null : Number(v)) })}>
              <option value="">Same as mine</option>
              {roles.data?.map((r) => <option key={r.id} value={r.id}>{r.attributes.role_name}</option>)}
            </Select>
          )}
        </Field>
        <Field label="Expires on" hint="Leave empty for a token that never expires." error={errors?.expires_at?.message}>
          {(p) => <Input {...p} type="date" {...form.register("api_token.expires_at", { setValueAs: (v) => (v ? new Date(`${v}T00:00:00Z`).toISOString() : null) })} />}
        </Field>
        <InlineError message={create.error ? errorMessage(create.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create token</Button>
        </div>
      </form>
    </Dialog>
  );
}
