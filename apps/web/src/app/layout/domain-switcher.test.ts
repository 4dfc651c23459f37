import { describe, expect, it } from 'vitest';
import { shortDomainName } from './domain-switcher';

describe('domain names', () => {
  it("are cut to 10 characters with '...'", () => {
    expect(shortDomainName('root')).toBe('root');
    expect(shortDomainName('abcdefghij')).toBe('abcdefghij');
    expect(shortDomainName('finance-department-east')).toBe('finance-de...');
    expect(shortDomainName('财务部华东区域分公司二部')).toBe('财务部华东区域分公司...');
  });
});
