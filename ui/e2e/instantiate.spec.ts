// The template workflow's second half against a real broker: the parameter
// form, its violations (ajv's and the broker's) beside the field, the live
// preview, instantiation into a stack the template targets, provenance and
// reconstruction, and the stack and object pages that list the result.
import { expect, screenshot, signIn, test, unique } from "./fixtures";

const TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}
data:
  replicas: "{{ replicas }}"
`;

const SCHEMA = {
  type: "object",
  required: ["name", "replicas"],
  properties: {
    name: { type: "string", title: "Name", default: "web", description: "The ConfigMap's name" },
    replicas: { type: "integer", title: "Replicas", minimum: 1, default: 2 },
  },
};

test("fill the form, fix a violation, preview, instantiate, and reconstruct", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const owner = await broker.generator(unique("owner"));
  const label = unique("tier");
  const template = await broker.call(admin, "POST", "/templates", {
    name: unique("configmap"),
    template_content: TEMPLATE,
    parameters_schema: JSON.stringify(SCHEMA),
  });
  await broker.call(admin, "POST", `/templates/${template.id}/labels`, label);
  const stackName = unique("stack");
  const stack = await broker.call(admin, "POST", "/stacks", { name: stackName, generator_id: owner.id });
  await broker.call(admin, "POST", `/stacks/${stack.id}/labels`, label);
  // A stack without the label is no target.
  const elsewhere = await broker.call(admin, "POST", "/stacks", { name: unique("other"), generator_id: owner.id });

  await signIn(page, admin);
  await page.goto(`./#/templates/${template.id}/instantiate`);

  // Defaults filled, and previewed as they are.
  const replicas = page.getByLabel("Replicas");
  await expect(replicas).toHaveValue("2");
  await expect(page.getByLabel("Name")).toHaveValue("web");
  const preview = page.getByTestId("preview");
  await expect(preview).toContainText('replicas: "2"');

  // A violation, beside its field: ajv's at once, the broker's after the
  // preview asked it.
  await replicas.fill("0");
  const replicasField = page.locator(".rjsf-field-integer", { has: replicas });
  await expect(replicasField).toContainText("must be >= 1");
  await expect(replicasField).toContainText("must be at least 1, got 0");
  await expect(preview).toContainText("The broker refuses these parameters: 1 violation");

  // Fixed: the errors go and the preview shows the YAML.
  await replicas.fill("3");
  await expect(preview).toContainText('replicas: "3"');
  await expect(preview).toContainText(`name: web`);
  await expect(replicasField).not.toContainText("must be");

  // Only the labelled stack is offered.
  const stackChoice = page.getByLabel("Stack");
  await expect(stackChoice.locator("option")).toHaveText([stackName]);
  await expect(stackChoice.locator("option", { hasText: elsewhere.name })).toHaveCount(0);
  await page.getByRole("button", { name: "Instantiate", exact: true }).click();

  const created = page.getByTestId("instantiated");
  await expect(created).toContainText("Created deployment object");
  const provenance = created.getByTestId("provenance");
  await expect(provenance).toContainText(template.name);
  await expect(provenance).toContainText(`version ${template.version}`);
  await expect(provenance).toContainText('"replicas": 3');
  await provenance.getByRole("button", { name: "Re-render and compare" }).click();
  await expect(provenance.getByTestId("reconstruction")).toContainText("identical");
  await screenshot(page, "instantiate");

  // The stack lists the object and the template it came from.
  const objects = await broker.call(admin, "GET", `/stacks/${stack.id}/deployment-objects`);
  expect(objects).toHaveLength(1);
  await created.getByRole("link", { name: stack.id }).click();
  await expect(page.getByRole("heading", { name: `Stack ${stackName}` })).toBeVisible();
  const table = page.getByTestId("deployment-objects");
  await expect(table).toContainText(objects[0].id);
  await expect(table).toContainText(`${template.name} v${template.version}`);
  await expect(table).toContainText(objects[0].yaml_checksum.slice(0, 12));
  await expect(page.getByText(label, { exact: true })).toBeVisible();
  await screenshot(page, "stack");

  // The object's own page: its YAML and the same reconstruction.
  await table.getByRole("link", { name: objects[0].id }).click();
  await expect(page.getByTestId("yaml")).toContainText('replicas: "3"');
  await expect(page.getByTestId("checksum")).toHaveText(objects[0].yaml_checksum);
  await page.getByRole("button", { name: "Re-render and compare" }).click();
  await expect(page.getByTestId("reconstruction")).toContainText("identical");

  // A new version retires the one the object came from; the broker still
  // renders the recorded version, so the object still reconstructs.
  const next = await broker.call(admin, "PUT", `/templates/${template.id}`, {
    template_content: `${TEMPLATE}  second: "version"\n`,
    parameters_schema: JSON.stringify(SCHEMA),
  });
  expect(next.version).toBe(template.version + 1);
  await page.reload();
  await expect(page.getByTestId("provenance")).toContainText("since superseded or retired");
  await page.getByRole("button", { name: "Re-render and compare" }).click();
  await expect(page.getByTestId("reconstruction")).toContainText(
    `identical: version ${template.version} with the recorded parameters`,
  );
});

test("an object submitted as YAML has no provenance, and the console says so", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const owner = await broker.generator(unique("owner"));
  const stack = await broker.call(admin, "POST", "/stacks", { name: unique("plain"), generator_id: owner.id });
  const object = await broker.call(admin, "POST", `/stacks/${stack.id}/deployment-objects`, {
    yaml_content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
  });
  await signIn(page, admin);
  await page.goto(`./#/objects/${object.id}`);
  await expect(page.getByText("submitted as YAML, not rendered from a template")).toBeVisible();
  await expect(page.getByTestId("yaml")).toContainText("name: plain");
});

test("a violation of the parameters as a whole is shown above the form", async ({ page, broker }) => {
  const admin = broker.adminPak;
  const template = await broker.call(admin, "POST", "/templates", {
    name: unique("whole"),
    template_content: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n",
    parameters_schema: JSON.stringify({
      type: "object",
      minProperties: 2,
      properties: { name: { type: "string", title: "Name", default: "web" }, extra: { type: "string", title: "Extra" } },
    }),
  });
  await signIn(page, admin);
  await page.goto(`./#/templates/${template.id}/instantiate`);
  await expect(page.getByTestId("preview")).toContainText("The broker refuses these parameters");
  await expect(page.getByTestId("parameters-errors")).toContainText("2");
  await page.getByLabel("Extra").fill("x");
  await expect(page.getByTestId("preview")).toContainText("name: web");
  await expect(page.getByTestId("parameters-errors")).toHaveCount(0);
});
