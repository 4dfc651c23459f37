import { describe, expect, it } from 'vitest';
import { addressBytes, ipAllowed, isIpRule } from './ip.js';

describe('IP whitelist rules', () => {
  it('accepts addresses and CIDR ranges of both families, and nothing else', () => {
    for (const ok of [
      '10.0.0.1',
      '10.0.0.0/8',
      '::1',
      '2001:db8::/32',
      'fe80::1%eth0',
      '::ffff:192.168.1.1',
      '0.0.0.0/0',
    ]) {
      expect(isIpRule(ok), ok).toBe(true);
    }
    for (const bad of [
      '10.0.0',
      '256.1.1.1',
      '10.0.0.1/33',
      '2001:db8::/129',
      'a::b::c',
      'example.com',
      '01.2.3.4',
      '1.2.3.4/',
    ]) {
      expect(isIpRule(bad), bad).toBe(false);
    }
  });

  it('matches addresses against the rules, IPv4-mapped IPv6 as IPv4', () => {
    expect(ipAllowed('192.168.1.20', [])).toBe(true);
    expect(ipAllowed('192.168.1.20', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('192.168.2.20', ['192.168.1.0/24'])).toBe(false);
    expect(ipAllowed('::ffff:192.168.1.20', ['192.168.1.0/24'])).toBe(true);
    expect(ipAllowed('2001:db8:0:1::5', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(ipAllowed('127.0.0.1', ['::1'])).toBe(false);
    expect(ipAllowed('::1', ['::1'])).toBe(true);
    expect(ipAllowed('garbage', ['0.0.0.0/0'])).toBe(false);
    expect(addressBytes('::ffff:10.1.2.3')).toEqual([10, 1, 2, 3]);
  });
});
