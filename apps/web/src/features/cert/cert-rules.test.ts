import { afterEach, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { i18n } from '../../i18n/i18n';
import { allMessages } from '../../test-rules';
import { certFieldRules } from './cert-rules';

describe('certificate form rules', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('says "Invalid name data format" for a refused name, and only that', async () => {
    const name = certFieldRules(api.cert.caCreate.body, 'name', 'Display name');
    expect(await allMessages(name, 'bad/name')).toEqual(['Invalid name data format']);
    expect(await allMessages(name, '')).toEqual(['Please enter Display name']);
    expect(await allMessages(name, 'Issuing CA 1')).toEqual([]);
    const country = certFieldRules(api.cert.issue.body, 'c', 'Country');
    expect(await allMessages(country, 'CHN')).toEqual(['Invalid name data format']);
  });

  it('says "Invalid email format" for any bad entry of the e-mail list', async () => {
    const emails = certFieldRules(api.cert.issue.body, 'emails', 'E-mail addresses');
    expect(await allMessages(emails, 'ops@example.com, not-an-address')).toEqual(['Invalid email format']);
    expect(await allMessages(emails, 'ops@example.com, sec@example.com')).toEqual([]);
    expect(await allMessages(emails, undefined)).toEqual([]);
  });

  it('speaks Chinese in Chinese', async () => {
    await i18n.changeLanguage('zh');
    const name = certFieldRules(api.cert.caCreate.body, 'name', '显示名称');
    expect(await allMessages(name, 'bad/name')).toEqual(['名称数据格式不正确']);
    const emails = certFieldRules(api.cert.caCreate.body, 'emails', '电子邮件地址');
    expect(await allMessages(emails, 'nope')).toEqual(['邮箱格式不正确']);
  });
});
