import { describe, expect, it } from 'vitest';
import { consoleAreas } from '@ksp/contracts';
import { flattenKeys } from './catalogue';
import { i18n } from './i18n';
import { acceptLanguage, detectLanguage } from './language';
import { loadCatalogue, namespaces } from './resources';

const en = await loadCatalogue('en');
const zh = await loadCatalogue('zh');

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1] ?? '').sort();
}

function leaves(value: unknown, prefix = ''): [string, string][] {
  if (typeof value === 'string') return [[prefix, value]];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
}

describe('catalogues', () => {
  it('list every namespace', () => {
    expect([...namespaces].sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });

  it.each(namespaces)('zh has exactly the keys en has (%s)', (ns) => {
    const enKeys = flattenKeys(en[ns]).sort();
    const zhKeys = flattenKeys(zh[ns]).sort();
    expect(zhKeys.filter((key) => !enKeys.includes(key))).toEqual([]);
    expect(enKeys.filter((key) => !zhKeys.includes(key))).toEqual([]);
  });

  it.each(namespaces)('no empty text and the same placeholders in both (%s)', (ns) => {
    const zhText = new Map(leaves(zh[ns]));
    for (const [key, text] of leaves(en[ns])) {
      expect(text.trim(), `${ns}:${key}`).not.toBe('');
      expect(zhText.get(key)?.trim(), `${ns}:${key}`).not.toBe('');
      expect(placeholders(zhText.get(key) ?? ''), `${ns}:${key}`).toEqual(placeholders(text));
    }
  });

  it('holds the fixed texts of docs/console.md word for word', () => {
    const all = new Set(namespaces.flatMap((ns) => leaves(en[ns]).map(([, text]) => text)));
    for (const text of [
      'Invalid email format',
      'Please enter your password',
      'Password cannot be less than 5 characters',
      'The two passwords you entered do not match',
      'Password does not meet the rules!',
      'PIN cannot be less than 6 characters',
      'Invalid name data format',
      'Invalid URL. Please check the URL parameters',
      'Please select at least 1 item!',
      'Caps Lock is on',
      'Incorrect username or password',
      'You cannot access this page...',
      'Your identity information has expired. Please log in again!',
      'Log In Again',
      'Please log in with Ukey',
      'Error',
      'Error: Network Error',
      'Key Management System',
      'no-name',
    ]) {
      expect(all.has(text), text).toBe(true);
    }
    expect(en.common.confirm.deleteContent).toMatch(/cannot be undone/);
    expect(zh.common.app.title).toBe('密钥管理系统');
  });

  it('titles every console area in the top bar as docs/console.md says', () => {
    const titles = (lng: 'en' | 'zh') =>
      Object.entries(consoleAreas).map(([area, def]) => [area, i18n.t(`layout:${def.title}`, { lng })]);
    expect(Object.fromEntries(titles('en'))).toEqual({
      console: 'Key Management System',
      cte: 'TDE',
      kadp: 'KADP',
      kms: 'KMS',
      rdm: 'RDM',
      credential: 'SMS',
    });
    for (const [area, title] of titles('zh')) expect(title, area).not.toMatch(/^area\./);
  });

  it('translates with the typed keys in both languages', async () => {
    // Chinese loads the first time it is needed (changeLanguage does it; here, by hand).
    await i18n.loadLanguages('zh');
    expect(i18n.t('common:validation.selectAtLeastOne', { lng: 'en' })).toBe(
      'Please select at least 1 item!',
    );
    expect(i18n.t('common:validation.selectAtLeastOne', { lng: 'zh' })).toBe('请至少选择 1 项！');
  });
});

describe('language choice', () => {
  it('prefers the cookie', () => {
    expect(detectLanguage('zh', ['en-US'])).toBe('zh');
    expect(detectLanguage('en', ['zh-CN'])).toBe('en');
  });

  it('falls back to the browser language (zh* → zh), English by default', () => {
    expect(detectLanguage(undefined, ['zh-TW', 'en'])).toBe('zh');
    expect(detectLanguage(undefined, ['fr-FR', 'en-GB'])).toBe('en');
    expect(detectLanguage(undefined, ['fr-FR'])).toBe('en');
    expect(detectLanguage('de', [])).toBe('en');
  });

  it('sends an Accept-Language the server understands', () => {
    expect(acceptLanguage('zh').startsWith('zh')).toBe(true);
    expect(acceptLanguage('en')).toBe('en');
  });
});
