-- AlterTable
ALTER TABLE "workspace_users" ADD COLUMN     "joined_at" TIMESTAMPTZ(3);

-- Memberships that existed before invitations had to be accepted count as accepted.
UPDATE "workspace_users" SET "joined_at" = "created_at";
