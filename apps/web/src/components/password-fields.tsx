import { Form, type FormInstance } from 'antd';
import type { Rule } from 'antd/es/form';
import { i18n, useT } from '../i18n/i18n';
import { PasswordInput } from './password-input';
import { meetsPasswordRules, PasswordRuleList, type PasswordRules } from './password-rules';

const PASSWORD_MIN = 5;

/**
 * Required, at least 5 characters, and (when known) the policy rules: one message at a
 * time (antd shows every failing rule), so the policy speaks once the length is met.
 */
export function newPasswordRules(rules: PasswordRules | undefined): Rule[] {
  return [
    { required: true, message: i18n.t('common:validation.passwordRequired') },
    { min: PASSWORD_MIN, message: i18n.t('common:validation.passwordMin') },
    {
      validator: (_rule, value: unknown) =>
        !rules || typeof value !== 'string' || value.length < PASSWORD_MIN || meetsPasswordRules(value, rules)
          ? Promise.resolve()
          : Promise.reject(new Error(i18n.t('common:validation.passwordRules'))),
    },
  ];
}

/** Required and equal to the field `passwordName`. */
export function confirmPasswordRules(passwordName: string): Rule[] {
  return [
    { required: true, message: i18n.t('common:validation.confirmRequired') },
    ({ getFieldValue }) => ({
      validator: (_rule, value: unknown) =>
        !value || getFieldValue(passwordName) === value
          ? Promise.resolve()
          : Promise.reject(new Error(i18n.t('common:validation.passwordMismatch'))),
    }),
  ];
}

interface NewPasswordFieldsProps {
  form: FormInstance;
  rules: PasswordRules | undefined;
  name?: string;
  confirmName?: string;
  label: string;
  confirmLabel: string;
  testIds?: { password: string; confirm: string };
}

/** New password + confirmation, with the policy rules listed and checked as the user types. */
export function NewPasswordFields({
  form,
  rules,
  name = 'password',
  confirmName = 'confirm',
  label,
  confirmLabel,
  testIds,
}: NewPasswordFieldsProps) {
  useT();
  const value = Form.useWatch<string | undefined>(name, form) ?? '';
  return (
    <>
      <Form.Item name={name} label={label} rules={newPasswordRules(rules)}>
        <PasswordInput autoComplete="new-password" data-testid={testIds?.password} />
      </Form.Item>
      {rules && <PasswordRuleList rules={rules} value={value} />}
      <Form.Item
        name={confirmName}
        label={confirmLabel}
        dependencies={[name]}
        rules={confirmPasswordRules(name)}
      >
        <PasswordInput autoComplete="new-password" data-testid={testIds?.confirm} />
      </Form.Item>
    </>
  );
}
