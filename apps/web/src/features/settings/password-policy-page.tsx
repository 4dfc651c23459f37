import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Col, Divider, Form, Input, Row, Skeleton, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import { fetchPasswordPolicy, passwordPolicyKeys, savePasswordPolicy } from '../../api/password-policy';
import { userKeys } from '../../api/user';
import { api, PasswordPolicy } from '@ksp/contracts';
import { useCanCall } from '../../components/permissions';
import { PasswordRuleList } from '../../components/password-rules';
import { useT } from '../../i18n/i18n';
import { policyProblems, previewRules, problemText, type PasswordPolicyValues } from './policy-checks';
import { formatDateTime } from '../../components/date-time';
import { SwitchField } from '../../components/switch-field';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';

type NumberField = Exclude<keyof PasswordPolicyValues, 'lockout_disabled'>;

const crossFields: NumberField[] = [
  'min_length',
  'min_lowercase',
  'min_uppercase',
  'min_digits',
  'min_special',
];

/** Settings › password policy: one form, checked as the server checks, with the rules users will see. */
export default function PasswordPolicyPage() {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.passwordPolicy.update);
  const [form] = Form.useForm<PasswordPolicyValues>();
  const [saving, setSaving] = useState(false);
  const [sample, setSample] = useState('');
  const policy = useQuery({ queryKey: passwordPolicyKeys.policy, queryFn: fetchPasswordPolicy });
  const watched = Form.useWatch([], form) as Partial<PasswordPolicyValues> | undefined;
  const values: Partial<PasswordPolicyValues> = watched ?? policy.data ?? {};
  const problems = policyProblems(values);
  const lockoutDisabled = values.lockout_disabled ?? false;

  const label = {
    min_length: t('access:policy.fields.minLength'),
    max_length: t('access:policy.fields.maxLength'),
    min_lowercase: t('access:policy.fields.minLowercase'),
    min_uppercase: t('access:policy.fields.minUppercase'),
    min_digits: t('access:policy.fields.minDigits'),
    min_special: t('access:policy.fields.minSpecial'),
    max_failed_attempts: t('access:policy.fields.maxFailedAttempts'),
    expiry_days: t('access:policy.fields.expiryDays'),
    min_change_days: t('access:policy.fields.minChangeDays'),
  } satisfies Record<NumberField, string>;

  const crossRule: Rule = ({ getFieldsValue }) => ({
    validator: () => {
      const found = policyProblems(getFieldsValue() as Partial<PasswordPolicyValues>);
      return found.length === 0
        ? Promise.resolve()
        : Promise.reject(new Error(found.map(problemText).join(' ')));
    },
  });

  const number = (name: NumberField, extra?: string, disabled = false) => (
    <WholeNumberField
      name={name}
      label={label[name]}
      range={limitsAt(PasswordPolicy, [name])}
      rules={name === 'max_length' ? [crossRule] : []}
      dependencies={name === 'max_length' ? crossFields : undefined}
      extra={extra}
      disabled={disabled}
      testId={`policy-${name}`}
    />
  );

  const save = async (next: PasswordPolicyValues) => {
    setSaving(true);
    try {
      const saved = await savePasswordPolicy(next);
      queryClient.setQueryData(passwordPolicyKeys.policy, saved);
      await queryClient.invalidateQueries({ queryKey: userKeys.passwordRules });
      void message.success(t('common:feedback.saved'));
    } catch {
      // The client showed the server's message.
    } finally {
      setSaving(false);
    }
  };

  if (!policy.data) {
    return (
      <Card>
        <Skeleton active />
      </Card>
    );
  }

  const col = { xs: 24, sm: 12 };

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={14}>
        <Card
          title={t('menu:passwordPolicy')}
          extra={
            <Typography.Text type="secondary">
              {t('access:policy.updatedAt', {
                time: formatDateTime(policy.data.updated_at),
              })}
            </Typography.Text>
          }
        >
          <Form<PasswordPolicyValues>
            form={form}
            layout="vertical"
            initialValues={policy.data}
            disabled={!canWrite}
            onFinish={(next) => void save(next)}
            data-testid="policy-form"
          >
            <Divider titlePlacement="start" style={{ marginTop: 0 }}>
              {t('access:policy.sections.composition')}
            </Divider>
            <Row gutter={16}>
              <Col {...col}>{number('min_length')}</Col>
              <Col {...col}>{number('max_length')}</Col>
              <Col {...col}>{number('min_lowercase')}</Col>
              <Col {...col}>{number('min_uppercase')}</Col>
              <Col {...col}>{number('min_digits')}</Col>
              <Col {...col}>{number('min_special', t('access:policy.specialHint'))}</Col>
            </Row>
            {problems.length > 0 && (
              <Alert
                type="error"
                showIcon
                style={{ marginBottom: 16 }}
                data-testid="policy-problems"
                title={problems.map((problem) => (
                  <div key={problem.kind}>{problemText(problem)}</div>
                ))}
              />
            )}
            <Divider titlePlacement="start">{t('access:policy.sections.lockout')}</Divider>
            <Row gutter={16}>
              <Col {...col}>
                <SwitchField
                  name="lockout_disabled"
                  label={t('access:policy.fields.lockoutDisabled')}
                  extra={t('access:policy.lockoutHint')}
                  testId="policy-lockout_disabled"
                />
              </Col>
              <Col {...col}>{number('max_failed_attempts', undefined, lockoutDisabled)}</Col>
            </Row>
            <Divider titlePlacement="start">{t('access:policy.sections.lifetime')}</Divider>
            <Row gutter={16}>
              <Col {...col}>{number('expiry_days', t('access:policy.expiryHint'))}</Col>
              <Col {...col}>{number('min_change_days', t('access:policy.minChangeHint'))}</Col>
            </Row>
            {canWrite ? (
              <Button type="primary" htmlType="submit" loading={saving} data-testid="policy-save">
                {t('common:actions.save')}
              </Button>
            ) : (
              <Alert type="info" showIcon title={t('access:policy.readOnly')} />
            )}
          </Form>
        </Card>
      </Col>
      <Col xs={24} xl={10}>
        <Card title={t('access:policy.previewTitle')} data-testid="policy-preview">
          <Typography.Paragraph type="secondary">{t('access:policy.previewHelp')}</Typography.Paragraph>
          <Input.Password
            value={sample}
            onChange={(event) => setSample(event.target.value)}
            placeholder={t('access:policy.tryPassword')}
            autoComplete="off"
            style={{ marginBottom: 12 }}
            data-testid="policy-try"
          />
          <PasswordRuleList rules={previewRules(values)} value={sample} />
          <ul style={{ paddingLeft: 18, margin: 0 }} data-testid="policy-summary">
            <li>
              {lockoutDisabled
                ? t('access:policy.summary.noLockout')
                : t('access:policy.summary.lockout', { count: values.max_failed_attempts ?? 0 })}
            </li>
            <li>
              {(values.expiry_days ?? 0) === 0
                ? t('access:policy.summary.neverExpires')
                : t('access:policy.summary.expires', { count: values.expiry_days ?? 0 })}
            </li>
            <li>
              {(values.min_change_days ?? 0) === 0
                ? t('access:policy.summary.noMinDays')
                : t('access:policy.summary.minDays', { count: values.min_change_days ?? 0 })}
            </li>
          </ul>
        </Card>
      </Col>
    </Row>
  );
}
