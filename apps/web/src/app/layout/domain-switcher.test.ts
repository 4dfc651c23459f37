import { describe, expect, it } from 'vitest';
import { DOMAIN_NAME_MAX, shortDomainName } from './domain-switcher';
import { areaOf } from './top-bar';

describe('domain names', () => {
  it("are cut to 10 characters with '...'", () => {
    expect(DOMAIN_NAME_MAX).toBe(10);
    expect(shortDomainName('root')).toBe('root');
    expect(shortDomainName('abcdefghij')).toBe('abcdefghij');
    expect(shortDomainName('finance-department-east')).toBe('finance-de...');
    expect(shortDomainName('财务部华东区域分公司二部')).toBe('财务部华东区域分公司...');
  });
});

describe('top-bar area', () => {
  it('comes from the first path segment, console by default', () => {
    expect(areaOf('/console/dashboard')).toBe('console');
    expect(areaOf('/cte/clients/main')).toBe('cte');
    expect(areaOf('/kadp/clients')).toBe('kadp');
    expect(areaOf('/kms/key')).toBe('kms');
    expect(areaOf('/rdm/clients/main')).toBe('rdm');
    expect(areaOf('/credential/cred/index')).toBe('credential');
    expect(areaOf('/404')).toBe('console');
  });
});
