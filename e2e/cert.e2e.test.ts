import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api } from '@ksp/contracts';
import { launch, newPage, shot } from './support/browser.js';
import { apiCall, startKsp, type RunningServer } from './support/server.js';
import { cellShown, cellUnder } from './support/geometry.js';
import { initializeByApi, loginByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';
import { newEcKey } from './support/agent.js';

/** What the certificate pages say, word for word, in each language. */
interface Language {
  code: 'en' | 'zh';
  locale: string;
  pending: string;
  active: string;
  root: string;
  intermediate: string;
  normal: string;
  revoked: string;
  keyCompromise: string;
  valid: string;
  signTitle: string;
}

const EN: Language = {
  code: 'en',
  locale: 'en-US',
  pending: 'Pending',
  active: 'Active',
  root: 'Root',
  intermediate: 'Intermediate',
  normal: 'Normal',
  revoked: 'Revoked',
  keyCompromise: 'Key compromise',
  valid: 'Valid',
  signTitle: 'Online certificate issuing',
};

const ZH: Language = {
  code: 'zh',
  locale: 'zh-CN',
  pending: '待签发',
  active: '有效',
  root: '根 CA',
  intermediate: '中间 CA',
  normal: '正常',
  revoked: '已吊销',
  keyCompromise: '密钥泄露',
  valid: '有效',
  signTitle: '在线签发证书',
};

let work: string;

function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A P-256 key and its PKCS#10 request, made by OpenSSL (the key never leaves the temp dir). */
function makeCsr(stem: string, cn: string): string {
  openssl('req', '-new', ...newEcKey(`${stem}.key`), '-out', `${stem}.csr`, '-subj', `/CN=${cn}`);
  return readFileSync(join(work, `${stem}.csr`), 'utf8');
}

/** A self-signed CA of someone else, as a certs-only PKCS#7 (.p7b), PEM (OpenSSL's default) or DER. */
function makeExternalP7b(stem: string, cn: string, form: 'PEM' | 'DER'): string {
  openssl(
    'req',
    '-x509',
    ...newEcKey(`${stem}.key`),
    '-out',
    `${stem}.pem`,
    '-days',
    '365',
    '-subj',
    `/CN=${cn}/O=Partner`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('crl2pkcs7', '-nocrl', '-certfile', `${stem}.pem`, '-outform', form, '-out', `${stem}.p7b`);
  return join(work, `${stem}.p7b`);
}

/** Clicks something that saves a file and returns the file's bytes. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return readFileSync(path);
}

/** Chooses an entry of an open "Download" menu. */
async function menuEntry(page: Page, testId: string): Promise<void> {
  const menu = page.locator('.ant-dropdown:not(.ant-dropdown-hidden)');
  await menu.getByTestId(testId).click();
}

const caRow = (page: Page, name: string) => page.getByTestId(`ca-row-${name}`);
const certRow = (page: Page, name: string) => page.getByTestId(`cert-row-${name}`);

async function openTab(page: Page, tab: 'certs' | 'cas'): Promise<void> {
  await page.getByTestId(`tab-${tab}`).click();
  await page.getByTestId(tab === 'cas' ? 'ca-list' : 'cert-list').waitFor();
}

/** Waits until the CA detail shows this many CRL entries (it may show cached figures first). */
async function expectCrlEntries(page: Page, ca: string, entries: number): Promise<void> {
  await openTab(page, 'cas');
  await page.getByTestId(`ca-link-${ca}`).click();
  const drawer = page.getByTestId('ca-detail');
  const crl = drawer.getByTestId('ca-crl');
  await crl.waitFor();
  await expect.poll(async () => Number(/^(\d+)/.exec(await crl.innerText())?.[1] ?? NaN)).toBe(entries);
  await page.locator('.ant-drawer-close').click();
  await drawer.waitFor({ state: 'hidden' });
}

/** Saves the CA's CRL (DER) through its "Download" menu; OpenSSL reads the revoked entries. */
async function downloadCrl(page: Page, ca: string, stem: string): Promise<{ entries: number; text: string }> {
  await openTab(page, 'cas');
  await caRow(page, ca).getByTestId(`ca-download-${ca}`).click();
  const crl = await downloaded(page, () => menuEntry(page, `ca-download-${ca}-crl-der`));
  writeFileSync(join(work, `${stem}.crl`), crl);
  const text = openssl('crl', '-inform', 'DER', '-in', `${stem}.crl`, '-noout', '-text');
  return { entries: (text.match(/Serial Number:/g) ?? []).length, text };
}

describe('certificates in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let adminToken: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ksp-cert-e2e-'));
    ksp = await startKsp();
    await initializeByApi(ksp.url);
    adminToken = await loginByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each([EN, ZH])(
    'runs a two-level local PKI, revokes into the CRL, imports a .p7b and issues on /sign-cert ($locale)',
    async (lang) => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      const root = `${lang.code}-root`;
      const sub = `${lang.code}-sub`;
      const leaf = `${lang.code}-web`;
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/cert/local`);
      await openTab(page, 'cas');

      // A root CA: created pending, then self-signed.
      await page.getByTestId('ca-create').click();
      await page.getByTestId('ca-name').fill(root);
      await page.getByTestId('ca-cn').fill(`E2E Root ${lang.code}`);
      await page.getByTestId('ca-o').fill('KSP');
      await page.getByTestId('ca-c').fill('CN');
      await page.getByTestId('ca-form-ok').click();
      await caRow(page, root).waitFor();
      await expect.poll(() => caRow(page, root).getByTestId('ca-state').innerText()).toBe(lang.pending);
      await caRow(page, root).getByTestId(`ca-self-sign-${root}`).click();
      await page.getByTestId('ca-validity').waitFor();
      await page.getByTestId('ca-form-ok').click();
      await expect.poll(() => caRow(page, root).getByTestId('ca-state').innerText()).toBe(lang.active);
      expect(await caRow(page, root).innerText()).toContain(lang.root);

      // The second run's root is made the default (the first one became it by being the first).
      const makeDefault = caRow(page, root).getByTestId(`ca-make-default-${root}`);
      if (await makeDefault.isVisible()) {
        await makeDefault.click();
        await page.getByTestId('ca-default-ok').click();
      }
      await caRow(page, root).getByTestId('ca-default').waitFor();

      // An intermediate CA signed by the root.
      await page.getByTestId('ca-create').click();
      await page.getByTestId('ca-name').fill(sub);
      await page.getByTestId('ca-cn').fill(`E2E Issuing ${lang.code}`);
      await page.getByTestId('ca-form-ok').click();
      await caRow(page, sub).waitFor();
      await caRow(page, sub).getByTestId(`ca-sign-${sub}`).click();
      await chooseOption(page, 'ca-parent', `${root} (E2E Root ${lang.code})`);
      await page.getByTestId('ca-form-ok').click();
      await expect.poll(() => caRow(page, sub).getByTestId('ca-state').innerText()).toBe(lang.active);
      expect(await caRow(page, sub).innerText()).toContain(lang.intermediate);
      await shot(page, `cert-cas-${lang.code}`);

      // A server certificate from an OpenSSL CSR, issued by the intermediate.
      const csr = makeCsr(`${lang.code}-web`, `web-${lang.code}.e2e.test`);
      await openTab(page, 'certs');
      await page.getByTestId('cert-issue').click();
      await page.getByTestId('issue-name').fill(leaf);
      await chooseOption(page, 'issue-ca', `${sub} (E2E Issuing ${lang.code})`);
      await page.getByTestId('issue-csr').fill(csr);
      await page.getByTestId('issue-dns_names').fill(`web-${lang.code}.e2e.test`);
      await page.getByTestId('issue-ok').click();
      await certRow(page, leaf).waitFor();
      await expect.poll(() => certRow(page, leaf).getByTestId('cert-status').innerText()).toBe(lang.normal);

      // Its chain as .p7b holds the leaf's issuers up to the root.
      await certRow(page, leaf).getByTestId(`cert-download-${leaf}`).click();
      const p7b = await downloaded(page, () => menuEntry(page, `cert-download-${leaf}-chain-p7b`));
      writeFileSync(join(work, `${leaf}.p7b`), p7b);
      const certs = openssl('pkcs7', '-inform', 'DER', '-in', `${leaf}.p7b`, '-print_certs', '-noout');
      expect(certs).toContain(`E2E Issuing ${lang.code}`);
      expect(certs).toContain(`E2E Root ${lang.code}`);

      // Revoked for key compromise: the intermediate's CRL gains the entry, in the file and in the
      // CA's details (the CRL download builds the current CRL first).
      const before = await downloadCrl(page, sub, `${sub}-before`);
      expect(before.entries).toBe(0);
      await expectCrlEntries(page, sub, 0);
      await openTab(page, 'certs');
      await certRow(page, leaf).getByTestId(`cert-revoke-${leaf}`).click();
      await chooseOption(page, 'revoke-reason', lang.keyCompromise);
      await page.getByTestId('revoke-ok').click();
      await expect.poll(() => certRow(page, leaf).getByTestId('cert-status').innerText()).toBe(lang.revoked);
      expect(await certRow(page, leaf).getByTestId(`cert-delete-${leaf}`).isVisible()).toBe(true);
      const listed = await apiCall<{ data: { name: string; serial: string }[] }>(
        ksp.url,
        api.cert.list,
        undefined,
        adminToken,
        { page: 1, page_size: 100, name: leaf },
      );
      const serial = listed.data.data.find((row) => row.name === leaf)?.serial ?? 'missing';
      const after = await downloadCrl(page, sub, `${sub}-after`);
      expect(after.entries).toBe(1);
      expect(after.text.replace(/:/g, '').toUpperCase()).toContain(serial.replace(/:/g, '').toUpperCase());
      expect(after.text).toContain('Key Compromise');
      await expectCrlEntries(page, sub, 1);

      // An external CA from a .p7b file: PEM in English, DER (sent as Base64) in Chinese.
      const external = `Partner Root ${lang.code}`;
      await page.goto(`${ksp.url}/console/cert/external`);
      await page.getByTestId('external-list').waitFor();
      await page.getByTestId('external-upload').click();
      await page
        .getByTestId('external-content-file')
        .setInputFiles(makeExternalP7b(`${lang.code}-partner`, external, lang.code === 'zh' ? 'DER' : 'PEM'));
      await page.getByTestId('external-content-loaded').waitFor();
      await page.getByTestId('external-upload-ok').click();
      const externalRow = page.getByTestId(`external-row-${external}`);
      await externalRow.waitFor();
      expect(await externalRow.getByTestId('external-status').innerText()).toBe(lang.valid);
      await shot(page, `cert-external-${lang.code}`);

      // /sign-cert, signed out: a registration token and a CSR give a client certificate.
      const token = await apiCall<{ secret: string }>(
        ksp.url,
        api.registrationToken.create,
        { name: `${lang.code}-enrol`, usage: 'cte', capacity: 3 },
        adminToken,
      );
      expect(token.code).toBe(0);
      const visitor = await newPage(browser, { locale: lang.locale });
      await visitor.page.goto(`${ksp.url}/sign-cert`);
      await expect
        .poll(() => visitor.page.getByRole('heading', { level: 4 }).innerText())
        .toBe(lang.signTitle);
      await visitor.page.getByTestId('sign-token').fill(token.data.secret);
      await visitor.page.getByTestId('sign-csr').fill(makeCsr(`${lang.code}-client`, `client-${lang.code}`));
      await visitor.page.getByTestId('sign-submit').click();
      await visitor.page.getByTestId('sign-result').waitFor();
      expect(await visitor.page.getByTestId('sign-remaining').innerText()).toBe('2');
      const pem = await downloaded(visitor.page, () =>
        visitor.page.getByTestId('sign-download-cert').click(),
      );
      writeFileSync(join(work, `${lang.code}-client.pem`), pem);
      expect(openssl('x509', '-in', `${lang.code}-client.pem`, '-noout', '-subject')).toContain(
        `client-${lang.code}`,
      );
      const p7bOnline = await downloaded(visitor.page, () =>
        visitor.page.getByTestId('sign-download-p7b').click(),
      );
      writeFileSync(join(work, `${lang.code}-client.p7b`), p7bOnline);
      expect(
        openssl('pkcs7', '-inform', 'DER', '-in', `${lang.code}-client.p7b`, '-print_certs', '-noout'),
      ).toContain(`client-${lang.code}`);
      await shot(visitor.page, `cert-sign-${lang.code}`);
      await visitor.context.close();

      expect(errors).toEqual([]);
      await page.context().close();
    },
  );

  it('installs a CA certificate an outside CA signed, renames it, makes it the default and deletes it (en)', async () => {
    const { page, errors } = await newPage(browser, { locale: EN.locale });
    const name = 'outside-signed';
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/cert/local`);
    await openTab(page, 'cas');
    await page.getByTestId('ca-create').click();
    await page.getByTestId('ca-name').fill(name);
    await page.getByTestId('ca-cn').fill('E2E Outside Signed');
    await page.getByTestId('ca-o').fill('KSP');
    await page.getByTestId('ca-form-ok').click();
    await expect.poll(() => caRow(page, name).getByTestId('ca-state').innerText()).toBe(EN.pending);

    // Its CSR, downloaded from the row, is signed by a CA of someone else with OpenSSL.
    await caRow(page, name).getByTestId(`ca-download-${name}`).click();
    const csr = await downloaded(page, () => menuEntry(page, `ca-download-${name}-csr`));
    writeFileSync(join(work, 'outside.csr'), csr);
    expect(openssl('req', '-in', 'outside.csr', '-noout', '-verify', '-subject')).toContain(
      'E2E Outside Signed',
    );
    // The outside CA: a self-signed CA of someone else (its .p7b is not needed here).
    makeExternalP7b('outside-root', 'Outside Root', 'PEM');
    writeFileSync(
      join(work, 'outside-ext.cnf'),
      'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      'outside.csr',
      '-CA',
      'outside-root.pem',
      '-CAkey',
      'outside-root.key',
      '-CAcreateserial',
      '-days',
      '200',
      '-extfile',
      'outside-ext.cnf',
      '-out',
      'outside-signed.pem',
    );
    const signed = readFileSync(join(work, 'outside-signed.pem'), 'utf8');
    const outsideRoot = readFileSync(join(work, 'outside-root.pem'), 'utf8');

    // A certificate for another key is refused with the reason; the right one (with its issuer) installs.
    await caRow(page, name).getByTestId(`ca-install-${name}`).click();
    await page.getByTestId('ca-install-pem').fill(outsideRoot);
    await page.getByTestId('ca-form-ok').click();
    await expect.poll(() => page.locator('.ant-message').innerText()).toMatch(/key/i);
    await page.getByTestId('ca-install-pem').fill(`${signed}${outsideRoot}`);
    await page.getByTestId('ca-form-ok').click();
    await expect.poll(() => caRow(page, name).getByTestId('ca-state').innerText()).toBe(EN.active);
    expect(await caRow(page, name).innerText()).toContain(EN.intermediate);

    // Renamed: the row follows the new name, and the chain it serves holds the outside root.
    const renamed = 'outside-issuing';
    await caRow(page, name).getByTestId(`ca-rename-${name}`).click();
    await page.getByTestId('ca-rename-name').fill(renamed);
    await page.getByTestId('ca-form-ok').click();
    await caRow(page, renamed).waitFor();
    expect(await caRow(page, name).count()).toBe(0);
    await caRow(page, renamed).getByTestId(`ca-download-${renamed}`).click();
    const chain = await downloaded(page, () => menuEntry(page, `ca-download-${renamed}-chain-p7b`));
    writeFileSync(join(work, 'outside-chain.p7b'), chain);
    const chainText = openssl(
      'pkcs7',
      '-inform',
      'DER',
      '-in',
      'outside-chain.p7b',
      '-print_certs',
      '-noout',
    );
    expect(chainText).toContain('E2E Outside Signed');
    expect(chainText).toContain('Outside Root');

    // The default issuing CA moves to it, and back to the first root before it is deleted.
    await caRow(page, renamed).getByTestId(`ca-make-default-${renamed}`).click();
    await page.getByTestId('ca-default-ok').click();
    await caRow(page, renamed).getByTestId('ca-default').waitFor();
    const previous = caRow(page, 'en-root');
    await previous.getByTestId('ca-make-default-en-root').click();
    await page.getByTestId('ca-default-ok').click();
    await previous.getByTestId('ca-default').waitFor();

    // Deleted after a confirmation; a CA that still signs another is refused with the reason.
    await caRow(page, renamed).getByTestId(`ca-delete-${renamed}`).click();
    await page.getByTestId('ca-delete-ok').click();
    await caRow(page, renamed).waitFor({ state: 'detached' });
    await previous.getByTestId('ca-delete-en-root').click();
    await page.getByTestId('ca-delete-ok').click();
    await expect.poll(() => page.locator('.ant-message').innerText()).toContain('en-root');
    expect(await previous.count()).toBe(1);

    expect(errors).toEqual([]);
    await page.context().close();
  });

  for (const view of [
    { width: 1440, height: 900, lang: EN, titles: ['Status', 'Validity', 'Parent certificate'] },
    { width: 1280, height: 800, lang: ZH, titles: ['状态', '有效期', '父证书'] },
    { width: 1440, height: 900, lang: ZH, titles: ['状态', '有效期', '父证书'] },
    { width: 1280, height: 800, lang: EN, titles: ['Status', 'Validity', 'Parent certificate'] },
  ] as const) {
    it(`shows a local certificate's status, validity and parent beside the pinned columns at ${view.width} px (${view.lang.code})`, async () => {
      const { page, errors } = await newPage(browser, {
        locale: view.lang.locale,
        width: view.width,
        height: view.height,
      });
      await signIn(page, ksp.url);
      if (view.lang.code === 'zh')
        await page.context().addCookies([{ name: 'language', value: 'zh', url: ksp.url }]);
      await page.goto(`${ksp.url}/console/cert/local`);
      // A leaf the two-level PKI test issued, under its intermediate CA.
      const row = page.locator('tr.ant-table-row:visible', { has: page.getByTestId('cert-link-en-web') });
      await row.waitFor();
      for (const title of view.titles)
        expect(`${title}: ${await cellShown(await cellUnder(row, title))}`).toBe(`${title}: shown`);
      expect(await (await cellUnder(row, view.titles[2])).innerText()).toBe('en-sub');
      await shot(page, `cert-local-${view.width}-${view.lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it('is usable below 992 px: the lists scroll inside their card and the issue form fits the screen', async () => {
    const { page, errors } = await newPage(browser, { width: 800, height: 900 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/cert/local`);
    await page.getByTestId('cert-list').waitFor();
    await page.getByTestId('cert-issue').click();
    const dialog = page.getByTestId('issue-form');
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 800).toBe(true);
    await shot(page, 'cert-issue-narrow');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await openTab(page, 'cas');
    // The page itself does not scroll sideways; the table does, inside its card.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
    await shot(page, 'cert-cas-narrow');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
