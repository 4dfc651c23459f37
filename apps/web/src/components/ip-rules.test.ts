import { describe, expect, it } from 'vitest';
import type { RuleObject } from 'antd/es/form';
import { formatIpRules, ipRulesRule, IP_RULES_MAX, parseIpRules } from './ip-rules';

function validate(value: string): Promise<void> {
  const rule = ipRulesRule() as RuleObject;
  return rule.validator!(rule, value, () => undefined) as Promise<void>;
}

describe('the IP whitelist field', () => {
  it('reads one entry per line, commas and blanks too, trimmed and without duplicates', () => {
    expect(parseIpRules(' 10.0.0.1 \n\n192.168.0.0/16, 10.0.0.1;2001:db8::/32  ::1\r\n')).toEqual({
      rules: ['10.0.0.1', '192.168.0.0/16', '2001:db8::/32', '::1'],
      invalid: [],
    });
    expect(parseIpRules(['10.0.0.1', ' 10.0.0.2 '])).toEqual({
      rules: ['10.0.0.1', '10.0.0.2'],
      invalid: [],
    });
    expect(parseIpRules('')).toEqual({ rules: [], invalid: [] });
    expect(parseIpRules(undefined)).toEqual({ rules: [], invalid: [] });
  });

  it('reports what is not an address or a CIDR range', () => {
    expect(parseIpRules('10.0.0.1\n300.1.1.1\n10.0.0.0/33\nhost.example\n::1/129\n300.1.1.1')).toEqual({
      rules: ['10.0.0.1'],
      invalid: ['300.1.1.1', '10.0.0.0/33', 'host.example', '::1/129'],
    });
  });

  it('edits a stored list one entry per line', () => {
    expect(formatIpRules(['10.0.0.1', '::1'])).toBe('10.0.0.1\n::1');
    expect(parseIpRules(formatIpRules(['10.0.0.1', '::1'])).rules).toEqual(['10.0.0.1', '::1']);
  });

  it('lets the form accept an empty list and valid entries, and refuse the rest', async () => {
    await expect(validate('')).resolves.toBeUndefined();
    await expect(validate('10.0.0.0/8\nfe80::1')).resolves.toBeUndefined();
    await expect(validate('10.0.0.0/8\nnope')).rejects.toThrow('Not an IP address or CIDR range: nope');
    const many = Array.from(
      { length: IP_RULES_MAX + 1 },
      (_v, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`,
    );
    await expect(validate(many.join('\n'))).rejects.toThrow(`At most ${IP_RULES_MAX} entries`);
  });
});
