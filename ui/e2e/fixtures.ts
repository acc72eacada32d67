// What every console test needs: the broker's API (to arrange data as a
// client would), the admin PAK, sign-in, and a screenshot of a main view
// saved under test-results/screenshots (build output, not committed).
import { expect, test as base, type Page } from "@playwright/test";

export interface Broker {
  url: string;
  adminPak: string;
  // A request to /api/v1 with `pak`; throws on a status other than `expect`.
  call<T = any>(pak: string, method: string, path: string, body?: unknown, expectStatus?: number): Promise<T>;
  // A new generator and its PAK.
  generator(name: string): Promise<{ id: string; pak: string }>;
}

function broker(): Broker {
  const url = process.env.SINDRI_BROKER_URL!;
  const call = async (pak: string, method: string, path: string, body?: unknown, expectStatus?: number) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${pak}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const ok = expectStatus === undefined ? response.ok : response.status === expectStatus;
    if (!ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const adminPak = process.env.SINDRI_ADMIN_PAK!;
  return {
    url,
    adminPak,
    call,
    async generator(name: string) {
      const created = await call(adminPak, "POST", "/generators", { name });
      return { id: created.generator.id, pak: created.pak };
    },
  };
}

// A name no earlier test in this run used: the broker lives for the run.
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
}

export async function signIn(page: Page, pak: string): Promise<void> {
  await page.goto("./");
  await page.getByLabel("Prefixed API key (PAK)").fill(pak);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("identity")).toBeVisible();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

export const test = base.extend<{ broker: Broker }>({
  broker: async ({}, use) => use(broker()),
});
export { expect };
