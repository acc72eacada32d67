// Makes docs/console-editor.png and docs/console-instantiate.png (npm run
// screenshots): a template with its schema, a stack it may go to, then the
// editor showing a syntax error at its line and the instantiation form
// beside its preview.
import { resolve } from "node:path";
import { expect, signIn, test } from "./fixtures";

const DOCS = resolve(import.meta.dirname, "../../docs");

const CONTENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}
  labels:
    app: {{ name }}
spec:
  replicas: {{ replicas }}
  selector:
    matchLabels:
      app: {{ name }}
  template:
    metadata:
      labels:
        app: {{ name }}
    spec:
      containers:
        - name: {{ name }}
          image: "{{ image }}"
{%- if port %}
          ports:
            - containerPort: {{ port }}
{%- endif %}
`;

const SCHEMA = {
  type: "object",
  required: ["name", "image"],
  properties: {
    name: { type: "string", pattern: "^[a-z][a-z0-9-]*$", description: "The Deployment's name" },
    image: { type: "string", description: "Container image" },
    replicas: { type: "integer", minimum: 1, maximum: 20, default: 2 },
    port: { type: "integer", minimum: 1, maximum: 65535, default: 8080 },
  },
};

test("the README's screenshots", async ({ page, broker }) => {
  const team = await broker.generator("shop-team");
  const template = await broker.call(team.pak, "POST", "/templates", {
    name: "web-deployment",
    description: "A Deployment of one container",
    template_content: CONTENT,
    parameters_schema: JSON.stringify(SCHEMA, null, 2),
  });
  await broker.call(team.pak, "POST", `/templates/${template.id}/labels`, "env=prod");
  const stack = await broker.call(team.pak, "POST", "/stacks", { name: "shop", generator_id: team.id });
  await broker.call(team.pak, "POST", `/stacks/${stack.id}/labels`, "env=prod");

  await signIn(page, team.pak);
  await page.goto(`./#/templates/${template.id}/edit`);
  const content = page.locator(".cm-content").first();
  await content.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nreplicas: {{ replicas + }}");
  await expect(page.getByTestId("problems-content")).toContainText("25:");
  await page.screenshot({ path: `${DOCS}/console-editor.png` });

  await page.goto(`./#/templates/${template.id}/instantiate`);
  await page.getByLabel(/^name/).first().fill("storefront");
  await page.getByLabel(/^image/).first().fill("registry.example.com/storefront:1.4.2");
  await expect(page.getByTestId("preview")).toContainText("registry.example.com/storefront:1.4.2");
  await page.screenshot({ path: `${DOCS}/console-instantiate.png` });
});
