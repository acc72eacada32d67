// The fleet views against a real broker: agents with their cluster,
// heartbeat age, labels and targets; one agent's page; which agents target
// a stack; the audit log and its filters; webhooks and work orders.
import { expect, screenshot, signIn, test, unique } from "./fixtures";

test("the fleet lists an agent with its heartbeat, labels and targets", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const owner = await broker.generator(unique("owner"));
  const stackName = unique("target");
  const stack = await broker.call(admin, "POST", "/stacks", { name: stackName, generator_id: owner.id });
  const agentName = unique("agent");
  const cluster = unique("cluster");
  const created = await broker.call(admin, "POST", "/agents", { name: agentName, cluster_name: cluster });
  const agent = created.agent;
  const label = unique("zone");
  await broker.call(admin, "POST", `/agents/${agent.id}/labels`, label);
  await broker.call(admin, "POST", `/agents/${agent.id}/targets`, { stack_id: stack.id });
  await broker.call(created.initial_pak, "POST", `/agents/${agent.id}/heartbeat`);

  await signIn(page, admin);
  await page.getByRole("link", { name: "Fleet" }).click();
  const row = page.getByTestId("fleet").getByRole("row").filter({ hasText: agentName });
  await expect(row).toContainText(cluster);
  await expect(row).toContainText(/\d+ s ago/);
  await expect(row).toContainText(label);
  await expect(row.getByRole("link", { name: stackName })).toBeVisible();
  await screenshot(page, "fleet");

  await row.getByRole("link", { name: agentName }).click();
  await expect(page.getByText(agent.id)).toBeVisible();
  await expect(page.getByText(label, { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: stackName })).toBeVisible();
  await expect(page.getByText("No events reported yet.")).toBeVisible();

  await page.goto(`./#/stacks/${stack.id}`);
  const targeting = page.getByRole("region", { name: "Agents targeting this stack" });
  await expect(targeting.getByRole("link")).toHaveCount(0);
  await targeting.getByRole("button", { name: "Show agents targeting this stack" }).click();
  await expect(targeting.getByRole("link", { name: agentName })).toBeVisible();
  // An admin may read health; nothing has been reported.
  await expect(page.getByRole("region", { name: "Health" })).toContainText("Overall: unknown");
});

test("the audit log shows entries and filters them", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const agentName = unique("audited");
  const created = await broker.call(admin, "POST", "/agents", { name: agentName, cluster_name: unique("cluster") });

  await signIn(page, admin);
  await page.getByRole("link", { name: "Audit log" }).click();
  const log = page.getByTestId("audit-log");
  await expect(log.getByRole("row").nth(1)).toBeVisible();

  const filters = page.getByRole("form", { name: "Audit log filters" });
  await filters.getByLabel("Action").fill("agent.created");
  await filters.getByLabel("Resource id").fill(created.agent.id);
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/#\/audit\?.*action=agent\.created/);
  await expect(log.getByRole("row")).toHaveCount(2);
  await expect(log).toContainText("agent.created");
  await expect(log).toContainText(created.agent.id);
  await expect(page.getByText("entries 1–1 of 1")).toBeVisible();
  await screenshot(page, "audit-log");

  await filters.getByRole("button", { name: "Clear" }).click();
  await expect(page).toHaveURL(/#\/audit$/);
  await expect(log.getByRole("row").nth(2)).toBeVisible();
});

test("an admin sees webhooks with their deliveries, and work orders", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const webhookName = unique("hook");
  await broker.call(admin, "POST", "/webhooks", {
    name: webhookName,
    url: "https://hooks.example.com/sindri",
    event_types: ["workorder.created"],
  });
  const workType = unique("rotate");
  await broker.call(admin, "POST", "/work-orders", {
    work_type: workType,
    yaml_content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rotate\n",
    targeting: { labels: [unique("nobody")] },
  });

  await signIn(page, admin);
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { name: "Webhooks" })).toBeVisible();
  const entry = page.locator("details", { hasText: webhookName });
  await expect(entry).toContainText("workorder.created");
  await entry.locator("summary").click();
  const deliveries = entry.locator(".deliveries");
  await expect(deliveries.getByLabel("Status")).toBeVisible();
  await expect(deliveries).toContainText("workorder.created");

  await page.getByRole("link", { name: "Work orders" }).click();
  await expect(page.getByRole("heading", { name: "Work orders" })).toBeVisible();
  const queue = page.getByRole("region", { name: "Queue" });
  await expect(queue.getByRole("row").filter({ hasText: workType })).toContainText(/pending/i);
  await expect(page.getByRole("alert")).toHaveCount(0);
});
