"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { relativeTime } from "@/components/common/format";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { DataTable } from "@/components/ui/data-table";
import { Field, Input, Select } from "@/components/ui/field";
import { EmptyState, InlineError } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useAddMember, useCan, useChangeMemberRole, useMe, useMembers, useRemoveMember, useRoles, type MemberAttributes } from "@/lib/api-client/settings";
import type { Resource } from "@/lib/api-client/types";
import { chosenId } from "@/lib/validation/ids";
import { createMemberSchema } from "@/lib/validation/members";

type Member = Resource<MemberAttributes>;
const col = createColumnHelper<Member>();

/** `sendsMail`: the server mails invitation links (SMTP_URL); without it they are only logged, and the page says so. */
export function MembersPage({ sendsMail }: { sendsMail: boolean }) {
  const me = useMe();
  const workspaceId = me.data?.attributes.workspace_id;
  const [page, setPage] = useState(1);
  const members = useMembers(workspaceId, page);
  const roles = useRoles();
  const canAdd = useCan("user", "create");
  const canUpdate = useCan("user", "update");
  const canRemove = useCan("user", "delete");
  const changeRole = useChangeMemberRole(workspaceId);
  const remove = useRemoveMember(workspaceId);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const myId = Number(me.data?.id);

  const columns = useMemo(
    () => [
      col.accessor((m) => m.attributes.name, {
        id: "name",
        header: "Name",
        // Null until the person accepts: an invitation does not reveal the account, nor gives access.
        cell: (i) => i.getValue() === null ? <span className="text-slate-500">Pending invitation</span> : <span className="font-medium text-slate-900">{i.getValue()}</span>,
      }),
      col.accessor((m) => m.attributes.email, { id: "email", header: "Email" }),
      col.display({
        id: "role",
        header: "Role",
        cell: ({ row }) => {
          const m = row.original.attributes;
          if (!canUpdate || m.user_id === myId) return m.role_name;
          return (
            <Select
              aria-label={`Role of ${m.email}`}
              className="w-40 py-1"
              value={m.role_id}
              onChange={(e) => changeRole.mutate({ userId: m.user_id, roleId: Number(e.target.value), email: m.email })}
            >
              {roles.data?.map((r) => (
                <option key={r.id} value={r.id}>{r.attributes.role_name}</option>
              ))}
            </Select>
          );
        },
      }),
      col.accessor((m) => m.attributes.last_login_at, { id: "last_login", header: "Last sign-in", cell: (i) => relativeTime(i.getValue()) }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) =>
          canRemove && row.original.attributes.user_id !== myId ? (
            <Button size="sm" variant="ghost" className="text-red-700" onClick={() => setRemoving(row.original)}>Remove</Button>
          ) : null,
      }),
    ],
    [canUpdate, canRemove, myId, roles.data, changeRole],
  );

  return (
    <>
      <PageHeader title="Members" description="People with access to this workspace and their roles." actions={canAdd ? <Button onClick={() => setAdding(true)}>Add member</Button> : null} />
      <DataTable
        label="Members"
        columns={columns}
        data={members.data?.data}
        isLoading={members.isLoading || me.isLoading}
        error={members.error ?? me.error}
        onRetry={() => void members.refetch()}
        pagination={{ page, perPage: 25, totalPages: members.data?.meta?.total_pages, totalCount: members.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(m) => m.id}
        empty={<EmptyState title="No members" />}
      />
      {adding && <AddMemberDialog workspaceId={workspaceId} sendsMail={sendsMail} onClose={() => setAdding(false)} />}
      <ConfirmDialog
        open={Boolean(removing)}
        onClose={() => setRemoving(null)}
        title={`Remove ${removing?.attributes.email}?`}
        description="They lose access to this workspace. Their account and other workspaces are kept."
        confirmLabel="Remove"
        loading={remove.isPending}
        onConfirm={() => removing && remove.mutate({ userId: removing.attributes.user_id, email: removing.attributes.email }, { onSettled: () => setRemoving(null) })}
      />
    </>
  );
}

/** The create body, with the role unset (null) until the person chooses one. */
const addMemberFormSchema = z.object({
  member: createMemberSchema.shape.member.extend({
    role_id: chosenId(createMemberSchema.shape.member.shape.role_id, "Choose a role"),
  }),
});

const INVITE_MAILED =
  "They get a link at this address to accept the invitation (choosing their password if they have no account yet). Until they accept, they are listed as a pending invitation and have no access.";
const INVITE_LOGGED =
  "This server sends no mail (SMTP_URL is not set): the invitation link is written to the server's log, and whoever runs the server passes it on. Until they accept through it, they are listed as a pending invitation and have no access.";

function AddMemberDialog({ workspaceId, sendsMail, onClose }: { workspaceId?: number; sendsMail: boolean; onClose: () => void }) {
  const roles = useRoles();
  const add = useAddMember(workspaceId, sendsMail);
  const form = useForm({
    resolver: zodResolver(addMemberFormSchema),
    defaultValues: { member: { email: "", name: "", role_id: null } },
  });
  const errors = form.formState.errors.member;
  const submit = form.handleSubmit((values) => {
    add.mutate(values.member, {
      onSuccess: onClose,
      onError: (err) => {
        for (const [path, message] of Object.entries(fieldErrors(err, "member"))) {
          if (["email", "name", "role_id"].includes(path)) form.setError(`member.${path}` as "member.email", { message });
        }
      },
    });
  });
  return (
    <Dialog open onClose={onClose} title="Add a member" description={sendsMail ? INVITE_MAILED : INVITE_LOGGED}>
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field label="Email" required error={errors?.email && `Email ${errors.email.message}`}>{(p) => <Input {...p} type="email" autoFocus {...form.register("member.email")} />}</Field>
        <Field label="Name" required hint="Used for a new account; an existing one keeps its own." error={errors?.name && `Name ${errors.name.message}`}>{(p) => <Input {...p} {...form.register("member.name")} />}</Field>
        <Field label="Role" required error={errors?.role_id && "Choose a role"}>
          {(p) => (
            <Select {...p} {...form.register("member.role_id", { valueAsNumber: true })}>
              <option value="">Choose a role…</option>
              {roles.data?.map((r) => <option key={r.id} value={r.id}>{r.attributes.role_name}</option>)}
            </Select>
          )}
        </Field>
        <InlineError message={add.error ? errorMessage(add.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" loading={add.isPending}>Add member</Button>
        </div>
      </form>
    </Dialog>
  );
}
