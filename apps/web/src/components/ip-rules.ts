import { isIpRule } from '@ksp/contracts';
import type { Rule } from 'antd/es/form';
import { i18n } from '../i18n/i18n';

/** The contract's limit on a whitelist (IpWhitelist.max). */
export const IP_RULES_MAX = 100;

export interface ParsedIpRules {
  /** Valid entries, trimmed, in order, without duplicates. */
  rules: string[];
  /** Entries that are neither an address nor a CIDR range, as typed. */
  invalid: string[];
}

/**
 * The whitelist typed in the form: one entry per line (commas, semicolons and blanks
 * separate too), or a list of tags. Empty entries are dropped; an empty list allows any
 * address.
 */
export function parseIpRules(input: string | readonly string[] | undefined | null): ParsedIpRules {
  const items =
    typeof input === 'string' ? input.split(/[\s,;]+/) : (input ?? []).flatMap((s) => s.split(/[\s,;]+/));
  const rules: string[] = [];
  const invalid: string[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (!item) continue;
    if (!isIpRule(item)) {
      if (!invalid.includes(item)) invalid.push(item);
    } else if (!rules.includes(item)) {
      rules.push(item);
    }
  }
  return { rules, invalid };
}

/** The text a whitelist is edited as: one entry per line. */
export function formatIpRules(rules: readonly string[]): string {
  return rules.join('\n');
}

/** Form rule: every entry an IPv4/IPv6 address or CIDR range, at most 100 of them. */
export function ipRulesRule(): Rule {
  return {
    validator: (_rule, value: unknown) => {
      const { rules, invalid } = parseIpRules(typeof value === 'string' ? value : '');
      if (invalid.length > 0)
        return Promise.reject(new Error(i18n.t('access:ip.invalid', { entries: invalid.join(', ') })));
      if (rules.length > IP_RULES_MAX)
        return Promise.reject(new Error(i18n.t('access:ip.tooMany', { max: IP_RULES_MAX })));
      return Promise.resolve();
    },
  };
}
