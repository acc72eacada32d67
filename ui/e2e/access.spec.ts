// What a PAK sees follows what the broker lets it read: a generator its own
// stacks, no admin views; a refused PAK sees why; an agent's PAK is not the
// console's.
import { expect, signIn, test, unique } from "./fixtures";

test("a generator sees its own stacks only, and is refused the admin's views", async ({ page, broker }) => {
  const myName = unique("mine");
  const mine = await broker.generator(myName);
  const theirs = await broker.generator(unique("theirs"));
  const myStack = await broker.call(mine.pak, "POST", "/stacks", { name: unique("my-stack") });
  const theirStack = await broker.call(theirs.pak, "POST", "/stacks", { name: unique("their-stack") });

  await signIn(page, mine.pak);
  await expect(page.getByTestId("identity")).toHaveText(`generator ${myName}`);
  await expect(page.getByRole("link", { name: "Audit log" })).toHaveCount(0);

  await page.getByRole("link", { name: "Stacks" }).click();
  await expect(page.getByRole("link", { name: myStack.name })).toBeVisible();
  await expect(page.getByRole("link", { name: theirStack.name })).toHaveCount(0);

  // Its own stack: objects listed; health, an admin's read, refused and said so.
  await page.getByRole("link", { name: myStack.name }).click();
  await expect(page.getByText("No deployment objects yet.")).toBeVisible();
  await expect(page.getByRole("region", { name: "Health" }).getByTestId("refused")).toContainText(
    "The broker refuses the stack's health to this PAK",
  );

  // Another generator's stack, by its address: the broker's refusal.
  await page.goto(`./#/stacks/${theirStack.id}`);
  await expect(page.getByRole("alert")).toContainText("belongs to another generator");

  await page.goto("./#/audit");
  await expect(page.getByTestId("refused")).toContainText("generator PAKs may not call GET /api/v1/admin/audit-logs");
});

test("a refused PAK sees the broker's reason on the sign-in page", async ({ page, broker }) => {
  const malformed = "brokkr_BRnotarealkey_xxx";
  const gone = await broker.generator(unique("gone"));
  await broker.call(broker.adminPak, "DELETE", `/generators/${gone.id}`);

  for (const pak of [malformed, gone.pak]) {
    const refusal = await broker.call(pak, "POST", "/auth/pak", undefined, 401);
    await page.goto("./");
    await page.getByLabel("Prefixed API key (PAK)").fill(pak);
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    await expect(alert).toContainText("unauthorized");
    await expect(alert).toContainText(refusal.message);
    await expect(page.getByTestId("identity")).toHaveCount(0);
  }
});

test("an agent's PAK is refused by the console", async ({ page, broker }) => {
  const created = await broker.call(broker.adminPak, "POST", "/agents", {
    name: unique("agent"),
    cluster_name: unique("cluster"),
  });
  await page.goto("./");
  await page.getByLabel("Prefixed API key (PAK)").fill(created.initial_pak);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toContainText("this is an agent's PAK");
  await expect(page.getByTestId("identity")).toHaveCount(0);
});

test("the PAK appears in no address and no console message", async ({ page, broker }) => {
  const seen: string[] = [];
  page.on("request", (request) => seen.push(`request ${request.url()}`));
  page.on("console", (message) => seen.push(`console ${message.text()}`));
  const record = () => seen.push(`address ${page.url()}`);

  await signIn(page, broker.adminPak);
  record();
  for (const view of ["Templates", "Stacks", "Fleet", "Webhooks", "Work orders", "Audit log"]) {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: view, exact: true }).click();
    await expect(page.getByRole("link", { name: view, exact: true })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("status").filter({ hasText: "Loading" })).toHaveCount(0);
    record();
  }
  await page.reload();
  await expect(page.getByTestId("identity")).toHaveText("admin");
  record();

  expect(seen.filter((entry) => entry.startsWith("request ")).length).toBeGreaterThan(6);
  expect(seen.filter((entry) => entry.includes(broker.adminPak))).toEqual([]);
});

test("a PAK revoked mid-session signs out and says why", async ({ page, broker }) => {
  const doomedName = unique("doomed");
  const doomed = await broker.generator(doomedName);
  await signIn(page, doomed.pak);
  // The first view's requests all answered before the PAK goes: a late one
  // would sign out before the click below.
  await expect(page.getByTestId("identity")).toHaveText(`generator ${doomedName}`);
  await page.waitForLoadState("networkidle");
  await broker.call(broker.adminPak, "DELETE", `/generators/${doomed.id}`);
  const refusal = await broker.call(doomed.pak, "GET", "/stacks", undefined, 401);

  await page.getByRole("link", { name: "Stacks" }).click();
  await expect(page.getByTestId("session-ended")).toHaveText(`Your PAK is no longer accepted: ${refusal.message}`);
  await expect(page.getByTestId("identity")).toHaveCount(0);
  await page.reload();
  await expect(page.getByLabel("Prefixed API key (PAK)")).toBeVisible();
});
