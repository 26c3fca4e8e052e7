-- CreateTable
CREATE TABLE "rate_limit_budgets" (
    "key" TEXT NOT NULL,
    "next_at" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_limit_budgets_pkey" PRIMARY KEY ("key")
);
