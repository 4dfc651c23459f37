/**
 * KSP console benchmark: prints figures, never fails a test run.
 *
 *   npm run build && npm run bench:console -w bench
 *
 * Starts the built server (SQLite, fresh data directory), which serves the built console, and
 * opens it in Debian's Chromium, a fresh browser context (cold cache) for every load:
 * - login: from navigation to a login form that takes input (the user name field is visible
 *   and enabled, and a typed character lands in it);
 * - dashboard: signed in through the API, the session put where the console keeps it
 *   (localStorage), from navigation to the dashboard showing its figures.
 * Times are the page's own clock (performance.now(), from the start of navigation) when the
 * field or figure first showed. Bytes (gzip, zlib's default level): what the page needs to get
 * there, read from the build (the entry with what index.html preloads, and the static imports of
 * the page's chunks), and what the browser had asked for by then, with what went over the wire. `BENCH_RUNS` sets the
 * number of loads of each (10 by default); `KSP_WEB_DIR` serves another build of the console
 * (to compare with an earlier one).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { initialize, login, percentile, root, startServer } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const LOGIN_TARGET_KB = 300;

interface Asset {
  url: string;
  gzip: number;
  wire: number;
  encoding: string;
}

interface Load {
  ms: number;
  assets: Asset[];
}

/** What a load waits for: an element the page shows, and the check that it works. */
interface Goal {
  /** `data-testid` of the element. */
  testId: string;
  /** A pattern its text must match, when the element is there before its content. */
  text?: string;
  /** Confirms from outside that the goal is reached (a typed character lands, say). */
  confirm(page: Page): Promise<void>;
}

/**
 * Opens `url` in a fresh context (cold cache) and waits for `goal`. The time is the page's own
 * clock (from the start of navigation) when the element was first in the page, visible and
 * enabled, seen by a mutation observer of the page as React commits it; the bytes are the JS
 * and CSS requested before that moment (Resource Timing): what the page needed to get there.
 * What it asks for once the element is there (its first calls, menus that load behind the
 * form) is not counted. (On loopback those responses end within the same frame, so the end of
 * a response cannot tell them apart.)
 */
async function measure(
  browser: Browser,
  url: string,
  options: BrowserContextOptions,
  goal: Goal,
): Promise<Load> {
  const context = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 800 },
    ...options,
  });
  // A script of the page (a string: tsx would wrap functions in helpers the page lacks).
  await context.addInitScript(`{
    const text = ${JSON.stringify(goal.text ?? null)};
    const seen = () => {
      const el = document.querySelector('[data-testid="${goal.testId}"]');
      if (!el || el.disabled) return false;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) return false;
      return text === null || new RegExp(text).test(el.textContent || '');
    };
    const watcher = new MutationObserver(() => {
      if (!seen()) return;
      window.kspShown = performance.now();
      watcher.disconnect();
    });
    watcher.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  }`);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const bodies: Promise<Asset | null>[] = [];
  page.on('requestfinished', (request) => {
    const type = request.resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    bodies.push(
      (async () => {
        const response = await request.response();
        if (!response) return null;
        const [body, sizes, encoding] = await Promise.all([
          response.body(),
          request.sizes(),
          response.headerValue('content-encoding'),
        ]);
        return {
          url: request.url(),
          gzip: gzipSync(body).length,
          wire: sizes.responseBodySize,
          encoding: encoding ?? 'none',
        };
      })(),
    );
  });
  try {
    await page.goto(url, { waitUntil: 'commit' });
    await goal.confirm(page);
    await page.waitForFunction('"kspShown" in window');
    const { ms, started } = await page.evaluate<{
      ms: number;
      started: { name: string; start: number }[];
    }>(`({
      ms: window.kspShown,
      started: performance.getEntriesByType('resource').map((e) => ({ name: e.name, start: e.startTime })),
    })`);
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
    const needed = new Set(started.filter((e) => e.start < ms).map((e) => e.name));
    const assets = (await Promise.all(bodies)).filter((a): a is Asset => a !== null && needed.has(a.url));
    return { ms, assets };
  } finally {
    await context.close();
  }
}

/** The login form takes input: the user name field is visible, enabled, and a typed character lands. */
const loginForm: Goal = {
  testId: 'login-username',
  async confirm(page) {
    const field = page.getByTestId('login-username');
    await field.waitFor({ state: 'visible' });
    await field.press('k');
    if ((await field.inputValue()) !== 'k') throw new Error('the login form did not take input');
  },
};

/** The dashboard shows its figures (the user count). */
const dashboard: Goal = {
  testId: 'dashboard-users',
  text: '\\d',
  async confirm(page) {
    await page.getByTestId('dashboard-users').filter({ hasText: /\d/ }).waitFor({ state: 'visible' });
  },
};

/**
 * What a page needs before it can render, read from the build: the JS and CSS that index.html
 * loads (the entry and what it preloads), and the static imports of the page's own chunks, all
 * the way down. The dynamic imports (what loads behind the page, or on demand) are left out.
 */
function staticClosure(webDir: string, pageChunks: string[]): Map<string, number> {
  const assets = join(webDir, 'assets');
  const files = readdirSync(assets);
  const html = readFileSync(join(webDir, 'index.html'), 'utf8');
  const queue = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  for (const prefix of pageChunks) {
    const chunk = files.find((f) => f.startsWith(`${prefix}-`) && f.endsWith('.js'));
    if (!chunk) throw new Error(`no chunk ${prefix}-*.js in ${assets}`);
    queue.push(chunk);
  }
  const sizes = new Map<string, number>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (sizes.has(file)) continue;
    const code = readFileSync(join(assets, file));
    sizes.set(file, gzipSync(code).length);
    if (file.endsWith('.js'))
      for (const m of code.toString('utf8').matchAll(/(?:\bfrom|\bimport)\s*["']\.\/([\w.-]+\.js)["']/g))
        queue.push(m[1]!);
  }
  return sizes;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-bench-console-'));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Browser | undefined;
  try {
    server = await startServer({
      KSP_DATA_DIR: dataDir,
      KSP_HOST: '127.0.0.1',
      KSP_LOGIN_RATE_PER_USER: '1000',
      KSP_LOGIN_RATE_PER_ADDRESS: '5000',
    });
    const { base } = server;
    await initialize(base);

    browser = await chromium.launch({
      executablePath: process.env.KSP_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });

    const logins: Load[] = [];
    const dashboards: Load[] = [];
    for (let i = 0; i < RUNS; i++) {
      logins.push(await measure(browser, `${base}/login`, {}, loginForm));
      const signedIn = await login(base);
      const storageState = {
        cookies: [],
        origins: [
          {
            origin: base,
            localStorage: [
              { name: 'token', value: signedIn.token },
              { name: 'tokenTime', value: String(Date.now()) },
              { name: 'userInfo', value: JSON.stringify(signedIn) },
              { name: 'name', value: signedIn.userinfo.name },
            ],
          },
        ],
      };
      dashboards.push(await measure(browser, `${base}/console/dashboard`, { storageState }, dashboard));
    }

    const webDir = process.env.KSP_WEB_DIR ?? join(root, 'apps/web/dist');
    const row = (name: string, loads: Load[], pageChunks: string[]) => {
      const times = loads.map((l) => l.ms);
      const needed = staticClosure(webDir, pageChunks);
      const neededGzip = [...needed.values()].reduce((n, size) => n + size, 0);
      // What the browser had asked for: the last load's (every load fetches the same files).
      const assets = loads.at(-1)?.assets ?? [];
      const fetched = (pick: (a: Asset) => number) => assets.reduce((n, a) => n + pick(a), 0);
      return {
        line: `| ${name} | ${loads.length} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} | ${needed.size} | ${kb(neededGzip)} | ${assets.length} | ${kb(fetched((a) => a.gzip))} | ${kb(fetched((a) => a.wire))} |`,
        gzip: neededGzip,
        needed,
        assets,
      };
    };
    const loginRow = row('login form interactive', logins, ['login-page']);
    const dashboardRow = row('signed-in dashboard', dashboards, ['app-layout', 'dashboard-with-alarms']);
    const encodings = [...new Set(loginRow.assets.map((a) => a.encoding))].join(', ');
    const lines = [
      `KSP console benchmark — ${new Date().toISOString()} — Chromium on loopback, cold cache, ${RUNS} loads each`,
      '',
      '| load | runs | p50 ms | p95 ms | needed: JS+CSS files | needed: KB gzip | asked for by then: files | KB gzip | KB on the wire |',
      '|---|---|---|---|---|---|---|---|---|',
      loginRow.line,
      dashboardRow.line,
      '',
      '"Needed": what index.html loads and the static imports of the page\'s chunks (from the build).',
      '"Asked for by then": the JS and CSS the browser had requested when the field or figure showed,',
      'including what the same render starts loading behind the page.',
      `Content-encoding of the login page's JS and CSS as served: ${encodings}.`,
      '',
      `login JS+CSS ≤ ${LOGIN_TARGET_KB} KB gzip: ${loginRow.gzip <= LOGIN_TARGET_KB * 1024 ? 'yes' : 'NO'} (${kb(loginRow.gzip)} KB)`,
    ];
    if (process.env.BENCH_FILES) {
      for (const [name, r] of [
        ['login', loginRow],
        ['dashboard', dashboardRow],
      ] as const) {
        lines.push('', `${name}: needed files (KB gzip):`);
        for (const [file, size] of [...r.needed].sort((x, y) => y[1] - x[1]))
          lines.push(`  ${kb(size).padStart(7)}  ${file}`);
      }
    }
    const text = lines.join('\n');
    console.log(text);
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(join(root, '.tmp', 'bench-console.md'), `${text}\n`);
  } finally {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
