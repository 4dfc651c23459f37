import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launch, shot } from './browser.js';
import { startKsp, type RunningServer } from './server.js';
import { initializeByApi } from './setup.js';

/** A stand-in for what is made in `beforeAll`: every use goes to the real object once it exists. */
function later<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, property) {
      const target = get();
      if (!target) throw new Error(`${what} is used before the file's beforeAll started it`);
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * One file's KSP and Chromium, shared by its tests: the built server is started (with `env`)
 * and, unless `initialize` is false, initialized through the API before the file's own
 * `beforeAll` hooks run; both are stopped after the file. When a test fails, every page still
 * open is photographed (`.e2e-artifacts/<name>-failed-<i>.png`) and its context closed, so the
 * next test starts clean. `ksp` and `browser` may be used in the file's hooks and tests as if
 * they were the started objects.
 */
export function consoleRun(o: { name: string; env?: Record<string, string>; initialize?: boolean }): {
  ksp: RunningServer;
  browser: Browser;
} {
  let ksp: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    ksp = await startKsp(o.env);
    if (o.initialize !== false) await initializeByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
  });
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail' || !browser) return;
    const pages = browser.contexts().flatMap((c) => c.pages());
    for (const [i, open] of pages.entries()) await shot(open, `${o.name}-failed-${i}`).catch(() => undefined);
    await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
  });
  return { ksp: later(() => ksp, 'the KSP server'), browser: later(() => browser, 'the browser') };
}
