// The migration to accepted invitations: memberships nobody has used stay pending invitations, and
// an account that has used none of its memberships (its password was chosen by whoever invited it)
// loses that password, its sessions and its API tokens; accounts in use keep all of it.
import { Client } from "pg";
import { afterAll, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { readMigrations } from "./migrate";

const MIGRATION = "20261128161152_invitations_and_recovery";
const scratch: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((s) => s.drop()));
});

it("keeps unused memberships pending and clears the inviter-chosen password of accounts never used", async () => {
  const db = await createScratchDatabase("ds_mig_invites");
  scratch.push(db);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const migrations = await readMigrations();
    const at = migrations.findIndex((m) => m.name === MIGRATION);
    expect(at).toBeGreaterThan(0);
    for (const m of migrations.slice(0, at)) await client.query(m.sql);
    await client.query(`
      INSERT INTO workspaces (id, name, slug, updated_at) VALUES (1, 'Stranger', 'stranger', now()), (2, 'Company', 'company', now());
      INSERT INTO roles (id, role_name, role_desc, policies, role_type, updated_at) VALUES (1, 'Admin', 'all', '{}', 'system', now());
      -- 10: pre-registered by a stranger, who signed in as it (joined their own workspace), then invited by the company.
      -- 11: invited by someone and never used. 12: an ordinary member who used their workspace.
      INSERT INTO users (id, email, name, password_hash, updated_at) VALUES
        (10, 'ceo@corp.test', 'CEO', 'stranger-chosen', now()),
        (11, 'new@corp.test', 'New', 'inviter-chosen', now()),
        (12, 'old@corp.test', 'Old', 'own-password', now());
      INSERT INTO workspace_users (id, workspace_id, user_id, role_id, joined_at, updated_at) VALUES
        (100, 1, 10, 1, now(), now()), (101, 2, 10, 1, NULL, now()),
        (102, 2, 11, 1, NULL, now()),
        (103, 2, 12, 1, now(), now());
      INSERT INTO api_tokens (id, workspace_id, user_id, name, jti, updated_at) VALUES
        (1, 1, 10, 'stranger''s', 'j1', now()), (2, 2, 11, 'unused', 'j2', now()), (3, 2, 12, 'in use', 'j3', now());
    `);
    await client.query(migrations[at].sql);

    const members = await client.query("SELECT id, joined_at IS NOT NULL AS joined FROM workspace_users ORDER BY id");
    expect(members.rows).toEqual([
      { id: 100, joined: true },
      { id: 101, joined: false },
      { id: 102, joined: false },
      { id: 103, joined: true },
    ]);
    const users = await client.query("SELECT id, password_hash, password_changed_at IS NOT NULL AS ended FROM users ORDER BY id");
    expect(users.rows).toEqual([
      { id: 10, password_hash: "stranger-chosen", ended: false },
      { id: 11, password_hash: "", ended: true },
      { id: 12, password_hash: "own-password", ended: false },
    ]);
    const tokens = await client.query("SELECT id, revoked_at IS NOT NULL AS revoked FROM api_tokens ORDER BY id");
    expect(tokens.rows).toEqual([
      { id: 1, revoked: false },
      { id: 2, revoked: true },
      { id: 3, revoked: false },
    ]);
  } finally {
    await client.end();
  }
});
