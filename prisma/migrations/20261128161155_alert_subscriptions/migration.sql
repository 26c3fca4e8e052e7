-- Alert mail consent (issue 32): an address that is not a verified member's gets a workspace's
-- alert mails only after confirming through a mailed link; every recipient can unsubscribe.

-- CreateEnum
CREATE TYPE "alert_subscription_status" AS ENUM ('pending', 'confirmed', 'unsubscribed');

-- CreateTable
CREATE TABLE "alert_subscriptions" (
    "id" SERIAL NOT NULL,
    "workspace_id" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "status" "alert_subscription_status" NOT NULL DEFAULT 'pending',
    "confirm_token_hash" TEXT,
    "confirm_expires_at" TIMESTAMPTZ(3),
    "confirmation_sent_at" TIMESTAMPTZ(3),
    "unsubscribe_token_hash" TEXT,
    "unsubscribe_token_encrypted" TEXT,
    "confirmed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_subscriptions_confirm_token_hash_key" ON "alert_subscriptions"("confirm_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "alert_subscriptions_unsubscribe_token_hash_key" ON "alert_subscriptions"("unsubscribe_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "alert_subscriptions_workspace_id_email_key" ON "alert_subscriptions"("workspace_id", "email");

-- AddForeignKey
ALTER TABLE "alert_subscriptions" ADD CONSTRAINT "alert_subscriptions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
