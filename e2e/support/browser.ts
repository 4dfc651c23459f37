import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const artifacts = fileURLToPath(new URL('../../.e2e-artifacts', import.meta.url));

/** Debian's Chromium (never a downloaded browser), headless, with no network chatter. */
export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.KSP_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export async function newPage(
  browser: Browser,
  options: {
    locale?: string;
    width?: number;
    height?: number;
    timezoneId?: string;
    /** For a server started over TLS with a self-signed certificate (`startKsp`). */
    ignoreHTTPSErrors?: boolean;
  } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    locale: options.locale ?? 'en-US',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

/**
 * A page that shows the console in `view.lang`: Chromium's locale, and for Chinese the language
 * cookie of `base` (the console's own choice), set before the first visit.
 */
export async function newPageIn(
  browser: Browser,
  base: string,
  view: { lang: 'en' | 'zh'; width?: number; height?: number },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await newPage(browser, {
    locale: view.lang === 'zh' ? 'zh-CN' : 'en-US',
    ...(view.width ? { width: view.width } : {}),
    ...(view.height ? { height: view.height } : {}),
  });
  if (view.lang === 'zh') await opened.context.addCookies([{ name: 'language', value: 'zh', url: base }]);
  return opened;
}

/** Saves a screenshot under .e2e-artifacts/ (for a person to look at when a run fails). */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: false });
}
