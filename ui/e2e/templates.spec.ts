// The template views against a real broker: the list, the editor checking
// as one types, saving versions, comparing them, and what a generator sees.
import type { Locator, Page } from "@playwright/test";
import { expect, screenshot, signIn, test, unique } from "./fixtures";

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { name: { type: "string", default: "web" }, replicas: { type: "integer", default: 1 } },
});

// Line 3 holds `{{ replicas + }}`: an expression is missing where `}}` stands.
const BROKEN_LINE = 'data: {replicas: "{{ replicas + }}"}';
const BROKEN = `apiVersion: v1\nkind: ConfigMap\n${BROKEN_LINE}\nmetadata: {name: "{{ name }}"}\n`;
const FIXED = BROKEN.replace("{{ replicas + }}", "{{ replicas + 1 }}");
const SECOND = FIXED.replace("{{ replicas + 1 }}", "{{ replicas * 2 }}");

function contentEditor(page: Page): Locator {
  return page.getByRole("textbox", { name: "Template content" });
}

async function replaceContent(page: Page, text: string): Promise<void> {
  const editor = contentEditor(page);
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
  await expect(editor).toHaveText(text.replace(/\n$/, "").split("\n").join(""));
}

function templateRow(page: Page, name: string): Locator {
  return page.locator(`[data-testid="template-row"][data-name="${name}"]`);
}

test("an admin writes a template, sees its syntax error at its line, saves two versions and compares them", async ({
  page,
  broker,
}) => {
  const name = unique("web");
  await signIn(page, broker.adminPak);
  await page.getByRole("link", { name: "New template" }).click();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Description").fill("a config map");
  await replaceContent(page, BROKEN);

  // Checked as typed: the problem at line 3 and its column, listed and marked.
  const column = BROKEN_LINE.indexOf("+ }}") + 3;
  const problems = page.getByTestId("problems-content").getByRole("button");
  await expect(problems).toHaveCount(1);
  await expect(problems.first()).toContainText(`3:${column}`);
  await expect(problems.first()).toContainText("invalid_template_syntax");
  await expect(page.locator(".cm-lint-marker-error")).toHaveCount(1);
  await expect(page.locator(".cm-line").nth(2).locator(".cm-lintRange-error").first()).toBeVisible();
  await screenshot(page, "template-editor");

  // Picking the problem puts the cursor there: typing lands inside line 3.
  await problems.first().click();
  await page.keyboard.insertText("1 ");
  await expect(page.getByTestId("check-status")).toHaveText("No problems.");
  await expect(page.getByTestId("problems-content")).toHaveCount(0);
  await expect(page.locator(".cm-lint-marker-error")).toHaveCount(0);

  // The broker refuses what the check flagged: its error is shown.
  await replaceContent(page, BROKEN);
  await expect(page.getByTestId("problems-content").getByRole("button")).toHaveCount(1);
  await page.getByRole("button", { name: "Create template" }).click();
  await expect(page.getByRole("alert")).toContainText("invalid_template_syntax");

  await replaceContent(page, FIXED);
  await expect(page.getByTestId("check-status")).toHaveText("No problems.");
  await page.getByRole("button", { name: "Create template" }).click();

  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  await expect(page.getByTestId("template-version")).toHaveText("1");
  await expect(page.getByTestId("template-content")).toHaveText(FIXED);
  await expect(page.getByText("There is one version")).toBeVisible();
  const firstVersionUrl = page.url();

  await page.getByRole("link", { name: "Edit" }).click();
  await expect(contentEditor(page)).toContainText("{{ replicas + 1 }}");
  await replaceContent(page, SECOND);
  await expect(page.getByTestId("check-status")).toHaveText("No problems.");
  await page.getByRole("button", { name: "Save version 2" }).click();

  await expect(page.getByTestId("template-version")).toHaveText("2");
  expect(page.url()).not.toBe(firstVersionUrl);
  const versions = page.locator("table.template-versions tbody tr");
  await expect(versions).toHaveCount(2);
  await expect(versions.nth(0)).toContainText("superseded");
  await expect(versions.nth(1)).toContainText("live");

  // Version 1 on the left, 2 on the right: line 3 changed, nothing else.
  const content = page.getByTestId("diff-Content");
  const changed = content.locator('tr[data-kind="changed"]');
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText("{{ replicas + 1 }}");
  await expect(changed).toContainText("{{ replicas * 2 }}");
  await expect(changed.locator("td.diff-number").first()).toHaveText("3");
  await expect(content.locator('tr[data-kind="same"]')).toHaveCount(3);
  await expect(page.getByTestId("diff-Parameter schema")).toContainText("identical");
  await screenshot(page, "template-versions");

  // The superseded version is still readable, not editable.
  await page.goto(firstVersionUrl);
  await expect(page.getByTestId("template-version")).toHaveText("1");
  await expect(page.getByText("This version is no longer live")).toBeVisible();
  await expect(page.getByRole("link", { name: "Edit" })).toHaveCount(0);

  await page.getByRole("link", { name: "Templates", exact: true }).click();
  await page.getByLabel("Filter by name").fill(name);
  const row = templateRow(page, name);
  await expect(row).toHaveCount(1);
  await expect(row.locator("td").nth(1)).toHaveText("2");
  await expect(row.locator("td").nth(2)).toHaveText("system");
  await screenshot(page, "templates-list");
});

test("a schema problem is shown at its place in YAML and in JSON", async ({ page, broker }) => {
  await signIn(page, broker.adminPak);
  await page.goto("./#/templates/new");
  const schema = page.getByRole("textbox", { name: "Parameter schema" });
  await schema.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText("type: object\nproperties:\n  replicas:\n    type: integr\n");
  const problems = page.getByTestId("problems-schema").getByRole("button");
  await expect(problems).toHaveCount(1);
  await expect(problems.first()).toContainText("4:11");
  await expect(problems.first()).toContainText("/properties/replicas/type");

  await page.getByRole("button", { name: "JSON" }).click();
  await expect(page.getByRole("button", { name: "JSON" })).toHaveAttribute("aria-pressed", "true");
  await expect(schema).toContainText('"type": "integr"');
  await expect(problems.first()).toContainText("/properties/replicas/type");
  await expect(problems.first()).toContainText(/^5:/);

  // An empty content is a problem without a place: listed, not marked, and
  // the schema's problem stays.
  await contentEditor(page).click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  const contentProblems = page.getByTestId("problems-content").getByRole("button");
  await expect(contentProblems).toHaveCount(1);
  await expect(contentProblems.first()).toContainText("—");
  await expect(contentProblems.first()).toContainText("(empty)");
  await expect(problems).toHaveCount(1);
  await expect(page.getByTestId("check-status")).toHaveText("2 problems.");
  await expect(page.locator(".cm-lint-marker-error")).toHaveCount(1);
});

test("editing a template checks it by its name and keeps its schema's text while the schema is left alone", async ({
  page,
  broker,
}) => {
  const name = unique("kept");
  // Spaced as nobody's serialiser would write it: any conversion shows.
  const storedSchema = '{ "type":"object",  "properties": {"name": {"type": "string", "default": "web"}} }';
  const template = await broker.call(broker.adminPak, "POST", "/templates", {
    name,
    template_content: FIXED,
    parameters_schema: storedSchema,
  });
  await signIn(page, broker.adminPak);
  await page.goto(`./#/templates/${template.id}/edit`);
  await expect(page.getByRole("button", { name: "YAML" })).toHaveAttribute("aria-pressed", "true");

  const checked = page.waitForRequest(
    (request) => request.url().endsWith("/api/v1/templates/check") && request.postDataJSON().template_content === SECOND,
  );
  await replaceContent(page, SECOND);
  const body = (await checked).postDataJSON();
  expect(body.name).toBe(name);
  expect(body.parameters_schema).toBe(storedSchema);

  await expect(page.getByTestId("check-status")).toHaveText("No problems.");
  await page.getByRole("button", { name: "Save version 2" }).click();
  await expect(page.getByTestId("template-version")).toHaveText("2");
  const versions = await broker.call(broker.adminPak, "GET", `/templates?name=${name}`);
  expect(versions.map((version: { parameters_schema: string }) => version.parameters_schema)).toEqual([
    storedSchema,
    storedSchema,
  ]);
});

test("a generator sees every template it may read, its own marked, and can narrow to its own", async ({
  page,
  broker,
}) => {
  const stem = unique("owners");
  const mine = await broker.generator(`${stem}-a`);
  const other = await broker.generator(`${stem}-b`);
  const create = (pak: string, name: string) =>
    broker.call(pak, "POST", "/templates", { name, template_content: FIXED, parameters_schema: SCHEMA });
  await create(mine.pak, `${stem}-mine`);
  await create(other.pak, `${stem}-theirs`);
  await create(broker.adminPak, `${stem}-system`);

  // The broker lets any generator read any template (docs/broker.md): the
  // list shows them all, its own marked, another's owner by id.
  await signIn(page, mine.pak);
  await page.getByLabel("Filter by name").fill(stem);
  const own = templateRow(page, `${stem}-mine`);
  await expect(own).toHaveCount(1);
  await expect(own.getByTestId("yours")).toHaveText("yours");
  await expect(own.locator("td").nth(2)).toContainText(`${stem}-a`);
  await expect(templateRow(page, `${stem}-system`)).toHaveCount(1);
  await expect(templateRow(page, `${stem}-system`).getByTestId("yours")).toHaveCount(0);
  const theirs = templateRow(page, `${stem}-theirs`);
  await expect(theirs).toHaveCount(1);
  await expect(theirs.getByTestId("yours")).toHaveCount(0);
  await expect(theirs.locator("td").nth(2)).toContainText(other.id);

  await page.getByLabel("Owner").selectOption({ label: "Yours" });
  await expect(templateRow(page, `${stem}-mine`)).toHaveCount(1);
  await expect(templateRow(page, `${stem}-theirs`)).toHaveCount(0);
  await expect(templateRow(page, `${stem}-system`)).toHaveCount(0);
});
