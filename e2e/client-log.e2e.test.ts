import { beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomUUID, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { api, CLIENT_LOG_AUDIENCE } from '@ksp/contracts';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';
import { consoleRun } from './support/run.js';
import { agentCsr } from './support/agent.js';

/** POST log/client/upload signed as docs/agent-log-upload.md says (ES256, x5c, bh). */
async function upload(base: string, key: KeyObject, certPem: string, body: unknown) {
  const raw = JSON.stringify(body);
  const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const x5c = certPem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  const input = `${b64u({ alg: 'ES256', x5c: [x5c] })}.${b64u({
    aud: CLIENT_LOG_AUDIENCE,
    iat: now,
    exp: now + 120,
    jti: randomUUID(),
    bh: createHash('sha256').update(raw).digest('base64url'),
  })}`;
  const sig = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  const res = await fetch(`${base}${api.clientLog.upload.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Agent ${input}.${sig}` },
    body: raw,
  });
  return (await res.json()) as { code: number; msg: string; data: { accepted: number } | null };
}

const list = (page: Page) => page.getByTestId('client-log-list');
const row = (page: Page, text: string) => list(page).locator('tr.ant-table-row', { hasText: text });

describe('client records, in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'client-log' });

  beforeAll(async () => {
    const token = await loginByApi(ksp.url);
    const ca = await apiCall<{ id: string }>(
      ksp.url,
      api.cert.caCreate,
      { name: 'Agents', cn: 'Agents CA', algorithm: 'EC-P256' },
      token,
    );
    if (ca.code !== 0) throw new Error(ca.msg);
    const signed = await apiCall(ksp.url, api.cert.caSelfSign, { id: ca.data.id }, token);
    if (signed.code !== 0) throw new Error(signed.msg);
    const { key, csr } = agentCsr('db-01.example.test');
    const cert = await apiCall<{ certificate_pem: string }>(
      ksp.url,
      api.cert.issue,
      { name: 'db-01', ca_id: ca.data.id, csr, purpose: 'client' },
      token,
    );
    if (cert.code !== 0) throw new Error(cert.msg);
    const at = new Date().toISOString();
    const sent = await upload(ksp.url, key, cert.data.certificate_pem, {
      client_name: 'db-01',
      client_os: 'Linux 6.1',
      records: [
        {
          level: 'INFO',
          at,
          action: 'read',
          effect: 'permit',
          os_user: 'alice',
          resource: '/data/finance/q1.xlsx',
          guard_point: '/data/finance',
          policy: 'finance',
        },
        {
          level: 'WARN',
          at,
          action: 'write',
          effect: 'deny',
          os_user: 'mallory',
          resource: '/data/finance/q2.xlsx',
          guard_point: '/data/finance',
          policy: 'finance',
        },
      ],
    });
    expect(sent, sent.msg).toMatchObject({ code: 0, data: { accepted: 2 } });
  });

  it('shows uploaded records in the Client records tab, filters, opens and exports them; in English and Chinese', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/log`);
    await page.getByTestId('log-tab-client').click();
    await page.waitForURL(/[?&]tab=client/);
    await row(page, 'mallory').waitFor();
    await row(page, 'alice').waitFor();
    expect(await row(page, 'mallory').getByTestId('client-log-effect').innerText()).toBe('Deny');
    expect(await row(page, 'mallory').innerText()).toContain('db-01 (Linux 6.1)');
    await shot(page, 'client-log');

    // Denied operations only.
    await chooseOption(page, 'client-log-filter-effect', 'Deny');
    await page.getByTestId('client-log-search').click();
    await page.waitForURL(/[?&]effect=deny/);
    expect(page.url()).toContain('tab=client');
    await expect.poll(() => list(page).locator('tr.ant-table-row').count()).toBe(1);
    await row(page, 'mallory').waitFor();

    // Its every field in the drawer.
    await row(page, 'mallory').getByTestId('client-log-open').click();
    const drawer = page.getByTestId('client-log-detail');
    await drawer.waitFor();
    const text = await drawer.innerText();
    for (const value of [
      '/data/finance/q2.xlsx',
      '/data/finance',
      'finance',
      'db-01.example.test',
      'Linux 6.1',
    ])
      expect(text).toContain(value);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    // Export CSV with the filter applied.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('client-log-export-csv').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^ksp-client-log-\d{8}-\d{6}Z\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv.startsWith('received_at,at,level,action,effect')).toBe(true);
    expect(csv).toContain('mallory');
    expect(csv).not.toContain('alice');
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('client-log-export-json').click(),
    ]);
    const exported = JSON.parse(readFileSync(await json.path(), 'utf8')) as { os_user: string }[];
    expect(exported.map((r) => r.os_user)).toEqual(['mallory']);

    // In Chinese.
    await page.getByTestId('lang-switch').click();
    await page.getByText('中文', { exact: true }).click();
    const header = list(page).locator('thead');
    await expect.poll(() => header.innerText()).toContain('接收时间');
    const titles = await header.innerText();
    for (const title of ['级别', '资源', '执行者（系统用户）', '客户端', '结果', '客户端地址'])
      expect(titles).toContain(title);
    expect(await page.getByTestId('log-tab-client').innerText()).toBe('客户端日志');
    expect(await row(page, 'mallory').getByTestId('client-log-effect').innerText()).toBe('拒绝');
    await page.getByTestId('lang-switch').click();
    await page.getByText('English', { exact: true }).click();
    await expect.poll(() => header.innerText()).toContain('Received');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits a 900 px screen: the table scrolls inside its card, the page does not', async () => {
    const { page, errors } = await newPage(browser, { width: 900, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/log?tab=client`);
    await list(page).locator('tr.ant-table-row').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot(page, 'client-log-900');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
