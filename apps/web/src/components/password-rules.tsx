import { CheckCircleFilled, CloseCircleOutlined } from '@ant-design/icons';
import { Typography } from 'antd';
import { useT } from '../i18n/i18n';
import type { DataOf, api } from '@ksp/contracts';

export type PasswordRules = DataOf<typeof api.user.passwordRules>;
export type PasswordRuleId = 'length' | 'lowercase' | 'uppercase' | 'digits' | 'special';

export interface PasswordRuleCheck {
  id: PasswordRuleId;
  ok: boolean;
}

function count(value: string, pattern: RegExp): number {
  return value.match(pattern)?.length ?? 0;
}

/** Each rule of the policy that applies (a minimum of 0 is no rule), and whether `value` meets it. */
export function checkPassword(value: string, rules: PasswordRules): PasswordRuleCheck[] {
  const length = [...value].length;
  const checks: PasswordRuleCheck[] = [
    { id: 'length', ok: length >= rules.min_length && length <= rules.max_length },
  ];
  if (rules.min_lowercase > 0)
    checks.push({ id: 'lowercase', ok: count(value, /[a-z]/g) >= rules.min_lowercase });
  if (rules.min_uppercase > 0)
    checks.push({ id: 'uppercase', ok: count(value, /[A-Z]/g) >= rules.min_uppercase });
  if (rules.min_digits > 0) checks.push({ id: 'digits', ok: count(value, /[0-9]/g) >= rules.min_digits });
  if (rules.min_special > 0)
    checks.push({ id: 'special', ok: count(value, /[^A-Za-z0-9]/gu) >= rules.min_special });
  return checks;
}

export function meetsPasswordRules(value: string, rules: PasswordRules): boolean {
  return checkPassword(value, rules).every((check) => check.ok);
}

/** The policy's rules as a list, each marked met or not for the typed value. */
export function PasswordRuleList({ rules, value }: { rules: PasswordRules; value: string }) {
  const t = useT();
  const text: Record<PasswordRuleId, string> = {
    length: t('common:password.length', { min: rules.min_length, max: rules.max_length }),
    lowercase: t('common:password.lowercase', { n: rules.min_lowercase }),
    uppercase: t('common:password.uppercase', { n: rules.min_uppercase }),
    digits: t('common:password.digits', { n: rules.min_digits }),
    special: t('common:password.special', { n: rules.min_special }),
  };
  return (
    <div data-testid="password-rules" style={{ marginBottom: 16 }}>
      <Typography.Text type="secondary">{t('common:password.rulesTitle')}</Typography.Text>
      <ul style={{ listStyle: 'none', paddingLeft: 0, margin: '4px 0 0' }}>
        {checkPassword(value, rules).map((check) => (
          <li key={check.id} data-rule={check.id} data-ok={check.ok}>
            <Typography.Text type={check.ok ? 'success' : 'secondary'}>
              {check.ok ? <CheckCircleFilled /> : <CloseCircleOutlined />} {text[check.id]}
            </Typography.Text>
          </li>
        ))}
      </ul>
    </div>
  );
}
