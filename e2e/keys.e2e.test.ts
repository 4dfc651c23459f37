import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { newPage, shot } from './support/browser.js';
import { apiCall } from './support/server.js';
import { loginByApi } from './support/setup.js';
import { aesKcv, chooseOption, rsaOaepUnwrap, rsaWrappingKey, signIn } from './support/ui.js';
import { api } from '@ksp/contracts';
import { consoleRun } from './support/run.js';

/** What the key pages say, word for word, in each language. */
interface Language {
  code: 'en' | 'zh';
  locale: string;
  title: string;
  inUse: string;
  disabled: string;
  destroyed: string;
  superseded: string;
  compromise: string;
  signing: string;
  level: string;
  base64: string;
  selectOne: string;
  undone: string;
  rsaOaep: string;
}

const EN: Language = {
  code: 'en',
  locale: 'en-US',
  title: 'Key Management System',
  inUse: 'In use',
  disabled: 'Disabled',
  destroyed: 'Destroyed',
  superseded: 'Superseded',
  compromise: 'Key compromise',
  signing: 'Signing (sign, verify)',
  level: 'NIST category 3',
  base64: 'Key content and encryption public key must be Base64',
  selectOne: 'Please select at least 1 item!',
  undone: 'cannot be undone',
  rsaOaep: 'RSA-OAEP (SHA-256)',
};

const ZH: Language = {
  code: 'zh',
  locale: 'zh-CN',
  title: '密钥管理系统',
  inUse: '使用中',
  disabled: '已禁用',
  destroyed: '已销毁',
  superseded: '已被取代',
  compromise: '密钥泄露',
  signing: '签名（签名、验签）',
  level: 'NIST 安全类别 3',
  base64: '密钥内容和加密公钥必须为 Base64 格式',
  selectOne: '请至少选择 1 项！',
  undone: '此操作无法撤销',
  rsaOaep: 'RSA-OAEP（SHA-256）',
};

const row = (page: Page, name: string) => page.getByTestId(`key-row-${name}`);
const list = (page: Page) => page.getByTestId('key-list');
const detail = (page: Page) => page.getByTestId('key-detail');

/** Runs a lifecycle action from a list row's "More" menu. */
async function rowAction(page: Page, name: string, action: string): Promise<void> {
  await list(page).getByTestId(`key-more-${name}`).click();
  const menu = page.locator('.ant-dropdown:not(.ant-dropdown-hidden)');
  await menu.getByTestId(`key-action-${action}`).click();
  await menu.waitFor({ state: 'hidden' });
}

/** The open confirmation: checks its text, then confirms. */
async function confirm(page: Page, text?: string): Promise<void> {
  const dialog = page.locator('.ant-modal-confirm');
  await dialog.waitFor();
  if (text) expect(await dialog.innerText()).toContain(text);
  await dialog.getByTestId('key-confirm-ok').click();
  await dialog.waitFor({ state: 'detached' });
}

async function stateOf(scope: Page | ReturnType<Page['getByTestId']>, name: string): Promise<string> {
  return scope.getByTestId(`key-state-${name}`).innerText();
}

describe('key management in the browser', () => {
  const { ksp, browser } = consoleRun({ name: 'keys' });

  it.each([EN, ZH])(
    'creates, rotates, disables, recovers, exports, destroys and deletes keys ($locale)',
    async (lang) => {
      const { page, errors } = await newPage(browser, { locale: lang.locale });
      const aes = `${lang.code}-billing`;
      const pq = `${lang.code}-signer`;
      await signIn(page, ksp.url);
      await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe(lang.title);
      await page.goto(`${ksp.url}/console/key`);
      await list(page).waitFor();

      // An AES-256 key, exportable, with a label.
      await page.getByTestId('key-create').click();
      await page.getByTestId('key-name').fill(aes);
      await expect.poll(() => page.getByTestId('key-algorithm').innerText()).toContain('AES-256');
      expect(await page.getByTestId('key-usage').locator('input[type=checkbox]:checked').count()).toBe(4);
      await page.getByTestId('key-exportable').click();
      // Fails here, not after the round trip, if the switch did not take the click.
      await expect.poll(() => page.getByTestId('key-exportable').getAttribute('aria-checked')).toBe('true');
      await page.getByTestId('label-add').click();
      await page.getByTestId('label-key-0').fill('team');
      await page.getByTestId('label-value-0').fill('payments');
      await page.getByTestId('key-form-ok').click();
      await row(page, aes).waitFor();
      expect(await stateOf(list(page), aes)).toContain(lang.inUse);
      expect(await list(page).getByTestId(`key-version-${aes}`).innerText()).toBe('1');
      expect(await list(page).getByTestId(`key-exportable-${aes}`).getAttribute('data-on')).toBe('true');

      // RSA asks encryption or signing first; ML-DSA-65 shows its security level, signs only.
      await page.getByTestId('key-create').click();
      await page.getByTestId('key-name').fill(pq);
      await page.getByTestId('key-algorithm').click();
      await page.keyboard.type('RSA-2048');
      await page.keyboard.press('Enter');
      await page.getByTestId('key-profile').waitFor();
      expect(await page.getByTestId('key-usage').count()).toBe(0);
      await page.getByTestId('key-profile').getByText(lang.signing).click();
      await page.getByTestId('usage-Sign').waitFor();
      expect(await page.getByTestId('usage-Encrypt').count()).toBe(0);
      await page.getByTestId('key-algorithm').click();
      await page.keyboard.type('ML-DSA-65');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('key-security-level').innerText()).toContain(lang.level);
      expect(await page.getByTestId('key-profile').count()).toBe(0);
      expect(await page.getByTestId('usage-Sign').isChecked()).toBe(true);
      expect(await page.getByTestId('usage-Verify').isChecked()).toBe(true);
      expect(await page.getByTestId('usage-Encrypt').count()).toBe(0);
      await shot(page, `keys-create-mldsa-${lang.code}`);
      await page.getByTestId('key-form-ok').click();
      await row(page, `${pq}.pub`).waitFor();
      await row(page, pq).waitFor();
      expect(await row(page, pq).innerText()).toContain('ML-DSA-65');

      // Rotate from the list: version 2.
      await rowAction(page, aes, 'addVersion');
      await confirm(page);
      await expect.poll(() => list(page).getByTestId(`key-version-${aes}`).innerText()).toBe('2');
      await shot(page, `keys-list-${lang.code}`);

      // The detail page: version 2, two versions, the label.
      await list(page).getByTestId(`key-link-${aes}`).click();
      await page.waitForURL(/\/console\/key\/detail\//);
      await detail(page).waitFor();
      await expect.poll(() => detail(page).getByTestId('key-attr-version').innerText()).toBe('2');
      await expect
        .poll(() => detail(page).getByTestId('key-versions').locator('tbody tr.ant-table-row').count())
        .toBe(2);
      expect(await detail(page).getByTestId('key-attr-labels').innerText()).toContain('team=payments');
      const kcv = (await detail(page).getByTestId('key-attr-kcv').innerText()).trim();
      expect(kcv).toMatch(/^[0-9A-F]{6}$/);

      // Disable with a reason: a compromise reason warns that it is final.
      const actions = detail(page).getByTestId('key-detail-actions');
      await actions.getByTestId('key-action-disable').click();
      await chooseOption(page, 'disable-reason', lang.compromise);
      await page.getByTestId('disable-compromise-warning').waitFor();
      await chooseOption(page, 'disable-reason', lang.superseded);
      await page.getByTestId('disable-compromise-warning').waitFor({ state: 'detached' });
      await page.getByTestId('disable-message').fill('replaced by a newer key');
      await page.getByTestId('form-modal-ok').click();
      await expect
        .poll(() => detail(page).getByTestId('key-attr-state').innerText())
        .toContain(lang.disabled);
      expect(await detail(page).getByTestId('key-attr-revocationReason').innerText()).toBe(lang.superseded);

      // Recover: in use again.
      await actions.getByTestId('key-action-recover').click();
      await confirm(page);
      await expect.poll(() => detail(page).getByTestId('key-attr-state').innerText()).toContain(lang.inUse);

      // Export wrapped by an RSA-2048 public key; unwrap in Node: 32 bytes with the shown KCV.
      const wrapping = rsaWrappingKey(2048);
      await actions.getByTestId('key-action-export').click();
      await page.getByTestId('export-wrap-key').fill('not base64!');
      await page.getByTestId('export-submit').click();
      await page.getByText(lang.base64).waitFor();
      await page.getByTestId('export-wrap-key').fill(wrapping.spkiBase64);
      await page.getByTestId('export-submit').click();
      await page.getByTestId('export-result').waitFor();
      expect(await page.getByTestId('export-wrapping').getAttribute('data-wrapping')).toBe('RSA-OAEP-SHA256');
      expect(await page.getByTestId('export-wrapping').innerText()).toBe(lang.rsaOaep);
      const material = await page.getByTestId('export-material').inputValue();
      const secret = rsaOaepUnwrap(wrapping.privateKey, material);
      expect(secret.length).toBe(32);
      expect(aesKcv(secret)).toBe(kcv);
      await shot(page, `keys-export-${lang.code}`);
      await page.getByTestId('export-close').click();

      // The audit trail lists what happened to the key.
      await detail(page).getByRole('tab').nth(1).click();
      await expect
        .poll(() => detail(page).getByTestId('key-audit').locator('tbody tr.ant-table-row').count())
        .toBeGreaterThanOrEqual(5);

      // Back to the list; clone under a new name.
      await detail(page).getByTestId('key-back').click();
      await page.waitForURL(/\/console\/key$/);
      await rowAction(page, aes, 'clone');
      await page.getByTestId('clone-name').fill(`${aes}-copy`);
      await page.getByTestId('form-modal-ok').click();
      await row(page, `${aes}-copy`).waitFor();

      // A public key exports as it is, without a wrapping key.
      await rowAction(page, `${pq}.pub`, 'export');
      expect(await page.getByTestId('export-wrap-key').count()).toBe(0);
      await page.getByTestId('export-submit').click();
      await page.getByTestId('export-result').waitFor();
      expect(await page.getByTestId('export-wrapping').getAttribute('data-wrapping')).toBe('none');
      const spki = Buffer.from(await page.getByTestId('export-material').inputValue(), 'base64');
      // The ML-DSA-65 public key is 1952 bytes (FIPS 204); an SPKI wrapping adds its header.
      expect(spki.length).toBeGreaterThanOrEqual(1952);
      await page.getByTestId('export-close').click();

      // Disable, then destroy ("cannot be undone"): hidden unless filtered.
      await rowAction(page, aes, 'disable');
      await page.getByTestId('form-modal-ok').click();
      await expect.poll(() => stateOf(list(page), aes)).toContain(lang.disabled);
      await rowAction(page, aes, 'destroy');
      await confirm(page, lang.undone);
      await row(page, aes).waitFor({ state: 'detached' });
      await chooseOption(page, 'key-filter-state', lang.destroyed);
      await list(page).getByTestId('key-search').click();
      await page.waitForURL(/state=destroyed/);
      await row(page, aes).waitFor();
      expect(await stateOf(list(page), aes)).toContain(lang.destroyed);
      expect(await row(page, pq).count()).toBe(0);

      // Delete the destroyed key from its row.
      await rowAction(page, aes, 'delete');
      await confirm(page, lang.undone);
      await row(page, aes).waitFor({ state: 'detached' });

      // Batch delete needs a selection and warns; the pair goes together.
      await list(page).getByTestId('key-reset').click();
      await row(page, pq).waitFor();
      await list(page).getByTestId('batch-delete').click();
      await page.getByText(lang.selectOne).waitFor();
      await row(page, pq).locator('input[type=checkbox]').check();
      await list(page).getByTestId('batch-delete').click();
      const batch = page.locator('.ant-modal-confirm');
      await batch.waitFor();
      expect(await batch.innerText()).toContain(lang.undone);
      await batch.getByTestId('confirm-delete').click();
      await row(page, pq).waitFor({ state: 'detached' });
      await row(page, `${pq}.pub`).waitFor({ state: 'detached' });

      expect(errors).toEqual([]);
      await page.context().close();
    },
  );

  it.each([
    { ...EN, hidden: 'Hide certificate keys', shown: 'Show certificate keys', tag: 'Certificate: ' },
    { ...ZH, hidden: '隐藏证书密钥', shown: '显示证书密钥', tag: '证书：' },
  ])(
    "keeps a certificate's keys out of the key list until asked, then links them to the certificate ($locale)",
    async (lang) => {
      const token = await loginByApi(ksp.url);
      const ca = await apiCall<{ id: string }>(
        ksp.url,
        api.cert.caCreate,
        { name: `${lang.code} keys CA`, cn: `${lang.code} Keys CA`, algorithm: 'EC-P256' },
        token,
      );
      expect(ca.code, ca.msg).toBe(0);
      expect((await apiCall(ksp.url, api.cert.caSelfSign, { id: ca.data.id }, token)).code).toBe(0);
      const certName = `${lang.code}-web`;
      const cert = await apiCall<{ id: string }>(
        ksp.url,
        api.cert.issue,
        { name: certName, ca_id: ca.data.id, cn: `${lang.code}.web.example.test` },
        token,
      );
      expect(cert.code, cert.msg).toBe(0);
      const keyName = `cert-${cert.data.id}`;
      const own = `${lang.code}-own-key`;
      const created = await apiCall(
        ksp.url,
        api.key.create,
        { name: own, algorithm: 'AES-256', usage_mask: 0x3c },
        token,
      );
      expect(created.code, created.msg).toBe(0);

      const { page, errors } = await newPage(browser, { locale: lang.locale });
      await signIn(page, ksp.url);
      await page.goto(`${ksp.url}/console/key`);
      await list(page).waitFor();
      // The list has answered (its own key is there) without the certificate's pair.
      await row(page, own).waitFor();
      expect(await row(page, keyName).count()).toBe(0);
      expect(await row(page, `${keyName}.pub`).count()).toBe(0);

      await chooseOption(page, 'key-filter-certificate_keys', lang.shown);
      await list(page).getByTestId('key-search').click();
      await row(page, keyName).waitFor();
      await row(page, `${keyName}.pub`).waitFor();
      const link = list(page).getByTestId(`key-belongs-${keyName}`);
      expect(await link.innerText()).toBe(`${lang.tag}${certName}`);
      expect(await list(page).getByTestId(`key-belongs-${keyName}.pub`).innerText()).toBe(
        `${lang.tag}${certName}`,
      );

      await link.click();
      await page.waitForURL(new RegExp(`/console/cert/local\\?cert=${cert.data.id}$`));
      const drawer = page.getByTestId('cert-detail');
      await drawer.waitFor();
      await expect.poll(() => drawer.innerText()).toContain(certName);
      await shot(page, `keys-cert-link-${lang.code}`);
      expect(errors).toEqual([]);
      await page.context().close();
    },
  );

  it('the KMS sub-console shows the same list under the title "KMS", and its links stay in /kms', async () => {
    const token = await loginByApi(ksp.url);
    const created = await apiCall<{ id: string }>(
      ksp.url,
      api.key.create,
      { name: 'kms-orders', algorithm: 'SM4', usage_mask: 0x3c },
      token,
    );
    expect(created.code).toBe(0);
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/kms/key`);
    await list(page).waitFor();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('KMS');
    await row(page, 'kms-orders').waitFor();
    expect(await row(page, 'kms-orders').innerText()).toContain('SM4');
    await list(page).getByTestId('key-link-kms-orders').click();
    await page.waitForURL(new RegExp(`/kms/key/detail/${created.data.id}$`));
    await detail(page).waitFor();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('KMS');
    await detail(page).getByTestId('key-back').click();
    await page.waitForURL(/\/kms\/key$/);

    // The main console lists the same key.
    await page.goto(`${ksp.url}/console/key`);
    await row(page, 'kms-orders').waitFor();
    await expect.poll(() => page.getByTestId('topbar-title').innerText()).toBe('Key Management System');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('imports an inactive AES key, activates it, and edits it (export once allowed stays allowed)', async () => {
    const material = randomBytes(16);
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/key`);
    await list(page).waitFor();
    await page.getByTestId('key-import').click();
    await page.getByTestId('key-name').fill('imported');
    await page.getByTestId('key-algorithm').click();
    await page.keyboard.type('AES-128');
    await page.keyboard.press('Enter');
    await page.getByText('16 bytes of raw key material, Base64').waitFor();
    await page.getByTestId('key-content').fill('not base64!');
    await page.getByTestId('key-form-ok').click();
    await page.getByText(EN.base64).waitFor();
    await page.getByTestId('key-content').fill(randomBytes(32).toString('base64'));
    await page.getByText('The content must decode to 16 bytes; it has 32').waitFor();
    await page.getByTestId('key-content').fill(material.toString('base64'));
    await page.getByTestId('key-initial-state').getByText('Inactive').click();
    await page.getByTestId('key-form-ok').click();
    await row(page, 'imported').waitFor();
    expect(await stateOf(list(page), 'imported')).toContain('Inactive');

    await rowAction(page, 'imported', 'activate');
    await confirm(page);
    await expect.poll(() => stateOf(list(page), 'imported')).toContain(EN.inUse);

    await list(page).getByTestId('key-link-imported').click();
    await detail(page).waitFor();
    expect(await detail(page).getByTestId('key-attr-kcv').innerText()).toBe(aesKcv(material));
    await detail(page).getByTestId('key-edit').click();
    await page.getByTestId('edit-description').fill('from the old HSM');
    await page.getByTestId('edit-exportable').click();
    await page.getByTestId('cte-enabled').click();
    await page.getByTestId('cte-versioned').click();
    await chooseOption(page, 'cte-mode', 'XTS');
    await page.getByTestId('form-modal-ok').click();
    await expect.poll(() => detail(page).getByTestId('key-attr-exportable').innerText()).toBe('Allowed');
    expect(await detail(page).getByTestId('key-attr-description').innerText()).toBe('from the old HSM');
    const cte = await detail(page).getByTestId('key-attr-cte').innerText();
    expect(cte).toContain('TDE version (versioned key): Yes');
    expect(cte).toContain('XTS');

    await detail(page).getByTestId('key-edit').click();
    expect(await page.getByTestId('edit-exportable').isDisabled()).toBe(true);
    await page.getByText('Export is allowed and stays allowed: it cannot be turned off again').waitFor();
    await shot(page, 'keys-edit');
    await page.keyboard.press('Escape');
    await page.locator('.ant-modal').waitFor({ state: 'hidden' });

    // Deleted from its detail page: back to the list, without a "not found" message.
    await detail(page).getByTestId('key-detail-actions').getByTestId('key-action-delete').click();
    await confirm(page, EN.undone);
    await page.waitForURL(/\/console\/key$/);
    await list(page).waitFor();
    await row(page, 'imported').waitFor({ state: 'detached' });
    await page.waitForTimeout(500);
    expect(await page.locator('.ant-message-notice-error').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('imports a public key made by openssl and verifies, through the API, a signature openssl made', async () => {
    // Outside KSP: an EC P-256 key pair and a DER signature by `openssl dgst`.
    const dir = mkdtempSync(join(tmpdir(), 'ksp-e2e-pub-'));
    const run = (args: string[]) => {
      const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
    };
    run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'partner.key']);
    run(['ec', '-in', 'partner.key', '-pubout', '-out', 'partner.pub']);
    writeFileSync(join(dir, 'order.txt'), 'order 1234: pay 10 EUR');
    run(['dgst', '-sha256', '-sign', 'partner.key', '-out', 'order.sig', 'order.txt']);
    const pem = readFileSync(join(dir, 'partner.pub'), 'utf8');
    const signature = readFileSync(join(dir, 'order.sig')).toString('base64');
    rmSync(dir, { recursive: true, force: true });

    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/console/key`);
    await list(page).waitFor();
    await page.getByTestId('key-import').click();
    await page.getByTestId('key-name').fill('partner-ec');
    await page.getByTestId('key-algorithm').click();
    await page.keyboard.type('EC-P256');
    await page.keyboard.press('Enter');
    await page.getByTestId('usage-Sign').waitFor();
    // The algorithm's list closes before the format's opens.
    await expect
      .poll(() => page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)').count())
      .toBe(0);
    await chooseOption(page, 'key-import-format', 'PEM text');
    await page.getByTestId('key-content').fill(pem);
    // A PUBLIC KEY block: the key will only verify, so Sign is no longer offered.
    await page.getByTestId('usage-Sign').waitFor({ state: 'detached' });
    expect(await page.getByTestId('usage-Verify').isVisible()).toBe(true);
    await page.getByTestId('key-form-ok').click();
    await row(page, 'partner-ec').waitFor();

    await list(page).getByTestId('key-link-partner-ec').click();
    await detail(page).waitFor();
    expect(await detail(page).getByTestId('key-attr-type').innerText()).toBe('Public key');
    expect(await detail(page).getByTestId('key-attr-signatureFormat').innerText()).toContain(
      'ECDSA: DER (ASN.1 r and s) by default',
    );
    const id = /\/console\/key\/detail\/([^/?#]+)/.exec(page.url())?.[1];
    expect(id).toBeTruthy();

    // The application side: verify the outside signature with the imported key.
    const token = await loginByApi(ksp.url);
    const data = Buffer.from('order 1234: pay 10 EUR').toString('base64');
    const good = await apiCall<{ valid: boolean }>(
      ksp.url,
      api.crypto.verify,
      { key_id: id, data, signature },
      token,
    );
    expect(good).toMatchObject({ code: 0, data: { valid: true } });
    const tampered = Buffer.from('order 1234: pay 99 EUR').toString('base64');
    const bad = await apiCall<{ valid: boolean }>(
      ksp.url,
      api.crypto.verify,
      { key_id: id, data: tampered, signature },
      token,
    );
    expect(bad).toMatchObject({ code: 0, data: { valid: false } });
    // A public key alone never signs.
    const sign = await apiCall(ksp.url, api.crypto.sign, { key_id: id, data }, token);
    expect(sign.code).not.toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('is usable on a 375 px phone', async () => {
    const { page, errors } = await newPage(browser, { width: 375, height: 812 });
    await signIn(page, ksp.url);
    await page.goto(`${ksp.url}/kms/key`);
    await list(page).waitFor();
    await page.getByTestId('key-create').click();
    await page.getByTestId('key-name').fill('phone-key');
    await page.getByTestId('key-form-ok').click();
    await row(page, 'phone-key').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'keys-list-375');
    await list(page).getByTestId('key-link-phone-key').click();
    await detail(page).waitFor();
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    await shot(page, 'keys-detail-375');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
