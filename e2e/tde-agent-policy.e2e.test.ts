import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { signIn } from './support/ui.js';

/** The built reference agent (`npm run build` makes tools/ksp-agent/dist). */
const agentCli = fileURLToPath(new URL('../tools/ksp-agent/dist/cli.js', import.meta.url));

function agent(args: string[]): ChildProcess {
  return spawn(process.execPath, [agentCli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function finished(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

const langs = [
  {
    code: 'en',
    locale: 'en-US',
    securityRules: 'Security rules',
    saved: 'saved (revision 2)',
    deny: 'Deny',
  },
  {
    code: 'zh',
    locale: 'zh-CN',
    securityRules: '安全规则',
    saved: '已保存（修订 3）',
    deny: '拒绝',
  },
] as const;

/**
 * A policy changed in the console's TDE policy editor reaches a running reference agent
 * (tools/ksp-agent, enrolled with a registration token, protecting a directory) within 2 s:
 * `ksp-agent cat` answers with the new decision, and its denial shows in the client records.
 */
describe('TDE policy editor → running agent, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let token = '';
  let policyId = '';
  let daemon: ChildProcess | undefined;
  let daemonLog = '';
  const work = mkdtempSync(join(tmpdir(), 'ksp-e2e-agent-policy-'));
  const state = join(work, 'state');
  const guarded = join(work, 'ledger');
  const file = join(guarded, 'figures.txt');

  const ok = <T extends { code: number; msg: string }>(res: T): T => {
    expect(res.code, res.msg).toBe(0);
    return res;
  };
  const cat = () => finished(agent(['cat', '--state', state, file]));

  beforeAll(async () => {
    mkdirSync(guarded);
    writeFileSync(file, 'quarterly figures\n');
    ksp = await startKsp();
    await initializeByApi(ksp.url);
    token = await loginByApi(ksp.url);
    // What the test is not about, through the console's calls: a TDE key, a user set naming the
    // test's OS user, a resource set of every file, and a policy whose first rule permits that
    // user (decrypted) and whose second denies everything else.
    const keyId = ok(
      await apiCall<{ id: string }>(
        ksp.url,
        api.key.create,
        {
          name: 'ledger-key',
          algorithm: 'AES-256',
          usage_mask: 0xc,
          cte: { versioned: false, persistent_on_client: false, encryption_mode: 'CBC' },
        },
        token,
      ),
    ).data.id;
    const element = async (body: Record<string, unknown>) =>
      ok(await apiCall<{ id: string }>(ksp.url, api.tdePolicy.elementCreate, body, token)).data.id;
    const me = await element({ kind: 'user', name: 'test-user', users: [{ uid: process.getuid!() }] });
    const files = await element({
      kind: 'resource',
      name: 'ledger-files',
      resources: [{ directory: '/', file: '*', include_subfolders: true }],
    });
    policyId = ok(
      await apiCall<{ id: string }>(
        ksp.url,
        api.tdePolicy.policyCreate,
        {
          name: 'ledger',
          type: 'standard',
          security_rules: [
            { user_set_id: me, resource_set_id: files, actions: ['read'], effects: ['permit', 'applykey'] },
            { actions: ['all_ops'], effects: ['deny'] },
          ],
          key_rules: [{ key_id: keyId }],
        },
        token,
      ),
    ).data.id;

    // The real agent enrols with a registration token, gets a guard point, and runs.
    const reg = ok(
      await apiCall<{ secret: string }>(
        ksp.url,
        api.registrationToken.create,
        { name: 'ledger-agents', usage: 'cte' },
        token,
      ),
    ).data;
    const enrolled = await finished(
      agent(
        ['enrol', '--server', ksp.url, '--token', reg.secret, '--name', 'ledger-01', '--type', 'tde'].concat([
          '--state',
          state,
        ]),
      ),
    );
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const clientId = (JSON.parse(enrolled.stdout) as { client_id: string }).client_id;
    ok(
      await apiCall(
        ksp.url,
        api.tdeClient.guardPointCreate,
        { client_id: clientId, path: guarded, type: 'directory_auto', policy_id: policyId },
        token,
      ),
    );
    daemon = agent(['run', '--state', state, '--heartbeat-s', '2', '--wait-s', '20']);
    daemon.stderr?.on('data', (c: Buffer) => (daemonLog += c.toString()));
    for (const end = Date.now() + 15_000; readFileSync(file).subarray(0, 4).toString() !== 'KSPE';) {
      if (Date.now() > end) throw new Error(`the agent did not encrypt the guard point:\n${daemonLog}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    browser = await launch();
  });
  afterAll(async () => {
    daemon?.kill('SIGTERM');
    if (daemon && daemon.exitCode === null) await new Promise((r) => daemon!.once('exit', r));
    await browser?.close();
    await ksp?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** Clicks Save on the policy editor and answers when the server's answer to it arrived. */
  async function save(page: Page): Promise<number> {
    const answered = page.waitForResponse((res) => res.url().endsWith(api.tdePolicy.policyUpdate.path));
    // The editor is a wizard: Save is on its last step, the review.
    await page.getByTestId('policy-step-review').click();
    await page.getByTestId('policy-save').click();
    const res = await answered;
    expect(((await res.json()) as { code: number }).code).toBe(0);
    return Date.now();
  }

  /** Runs `ksp-agent cat` until it answers as `wanted` wants; the time from `since` to that answer. */
  async function agentAnswers(
    since: number,
    wanted: (out: Awaited<ReturnType<typeof cat>>) => boolean,
  ): Promise<number> {
    for (;;) {
      const out = await cat();
      if (wanted(out)) return Date.now() - since;
      if (Date.now() - since > 5000)
        throw new Error(`agent still answers ${JSON.stringify(out)}\n${daemonLog}`);
    }
  }

  for (const lang of langs) {
    const denyNow = lang.code === 'en';
    it(`${denyNow ? 'denies' : 'permits again'} the read within 2 s of saving the policy in the editor (${lang.code})`, async () => {
      // Before: the first rule decides (en: permitted and decrypted; zh: after en, denied).
      const before = await cat();
      if (denyNow) expect(before).toMatchObject({ code: 0, stdout: 'quarterly figures\n' });
      else expect(before.code).toBe(1);

      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      if (lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/cte/policies/policies-details/${policyId}`);
      await page.getByTestId('policy-step-rules').click();
      await page.getByTestId('rule-row-1').waitFor();
      await page.getByText(lang.securityRules, { exact: true }).first().waitFor();
      if (denyNow) {
        // The deny-everything rule moves first: it now decides every read.
        await page.getByTestId('rule-up-1').click();
        await expect.poll(() => page.getByTestId('rule-row-0').innerText()).toContain('Deny');
      } else {
        await page.getByTestId('rule-down-0').click();
        await expect.poll(() => page.getByTestId('rule-row-0').innerText()).toContain('test-user');
      }
      const savedAt = await save(page);
      const elapsed = await agentAnswers(savedAt, (out) =>
        denyNow
          ? out.code === 1 && out.stderr.includes('permission denied by policy') && out.stdout === ''
          : out.code === 0 && out.stdout === 'quarterly figures\n',
      );
      expect(elapsed).toBeLessThan(2000);
      await page.getByText(lang.saved).first().waitFor();
      await shot(page, `tde-agent-policy-${lang.code}`);

      // The agent reports a denial: it shows in the client records, in the page's language.
      if (denyNow) {
        await page.goto(`${ksp.url}/console/log?tab=client`);
        const row = page
          .getByTestId('client-log-list')
          .locator('tr.ant-table-row', { hasText: 'figures.txt' })
          .first();
        await row.waitFor({ timeout: 10_000 });
        expect(await row.getByTestId('client-log-effect').innerText()).toBe(lang.deny);
        expect(await row.innerText()).toContain('ledger-01');
        const logged = await apiCall<{ data: { policy: string; resource: string; effect: string }[] }>(
          ksp.url,
          api.clientLog.list,
          undefined,
          token,
          { page: 1, page_size: 10, action: 'read', effect: 'deny' },
        );
        expect(logged.data.data[0]).toMatchObject({ policy: 'ledger', resource: file, effect: 'deny' });
      }
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});
