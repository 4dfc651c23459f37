import { useState } from 'react';
import { CheckCircleFilled, CloseCircleFilled } from '@ant-design/icons';
import { Alert, Button, Flex, Form, Input, Modal, Steps, Tag, Typography } from 'antd';
import { testLdap } from '../../api/access';
import { PasswordInput } from '../../components/password-input';
import { useT } from '../../i18n/i18n';
import {
  ldapSteps,
  ldapTestBody,
  type LdapFormValues,
  type LdapStep,
  type LdapTestResult,
} from './ldap-values';

const stepKeys = {
  connect: 'access:ldap.steps.connect',
  bind: 'access:ldap.steps.bind',
  'find-user': 'access:ldap.steps.findUser',
  'bind-user': 'access:ldap.steps.bindUser',
  groups: 'access:ldap.steps.groups',
} as const satisfies Record<LdapStep, string>;

/** The five steps with ok/failed, time and detail; steps after a failure were not run. */
export function LdapTestSteps({ result }: { result: LdapTestResult }) {
  const t = useT();
  return (
    <Flex vertical gap={12} data-testid="ldap-test-result" data-ok={result.ok}>
      <Alert
        type={result.ok ? 'success' : 'error'}
        showIcon
        title={result.ok ? t('access:ldap.testOk') : t('access:ldap.testFailed')}
      />
      <Steps
        orientation="vertical"
        size="small"
        items={ldapSteps.map((step) => {
          const ran = result.steps.find((s) => s.step === step);
          return {
            key: step,
            status: ran ? (ran.ok ? 'finish' : 'error') : 'wait',
            icon: ran ? ran.ok ? <CheckCircleFilled /> : <CloseCircleFilled /> : undefined,
            title: (
              <span data-testid={`ldap-step-${step}`} data-ok={ran ? String(ran.ok) : 'skipped'}>
                {t(stepKeys[step])}
              </span>
            ),
            subTitle: ran
              ? `${ran.ok ? t('access:ldap.stepOk') : t('access:ldap.stepFailed')} · ${t('access:ldap.ms', { ms: ran.ms })}`
              : t('access:ldap.stepSkipped'),
            content: ran?.detail ? (
              <Typography.Text type={ran.ok ? 'secondary' : 'danger'} style={{ wordBreak: 'break-word' }}>
                {ran.detail}
              </Typography.Text>
            ) : undefined,
          };
        })}
      />
      <div>
        <Typography.Text strong>{t('access:ldap.groupsFound')}</Typography.Text>{' '}
        <span data-testid="ldap-test-groups">
          {result.groups.length === 0 ? (
            <Typography.Text type="secondary">{t('access:ldap.noGroups')}</Typography.Text>
          ) : (
            result.groups.map((group) => (
              <Tag key={group} color="purple">
                {group}
              </Tag>
            ))
          )}
        </span>
      </div>
    </Flex>
  );
}

/** What to test: a stored connection (`id`), possibly with unsaved form values over it. */
export interface LdapTestSource {
  id?: string;
  name: string;
  values: LdapFormValues | null;
}

/** Asks for a test user and its password, runs the test and shows each step. */
export function LdapTestModal({
  source,
  onClose,
  onGroups,
}: {
  source: LdapTestSource | null;
  onClose: () => void;
  /** The groups the test found (offered for the group → role mapping). */
  onGroups?: (groups: string[]) => void;
}) {
  const t = useT();
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<LdapTestResult | null>(null);

  const run = async ({ username, password }: { username: string; password?: string }) => {
    if (!source) return;
    setRunning(true);
    setResult(null);
    try {
      const answer = await testLdap(ldapTestBody(source.values, source.id, username, password ?? ''));
      setResult(answer);
      onGroups?.(answer.groups);
    } catch {
      // The client showed the server's message.
    } finally {
      setRunning(false);
    }
  };

  const close = () => {
    setResult(null);
    onClose();
  };

  return (
    <Modal
      open={source !== null}
      title={t('access:ldap.testTitle', { name: source?.name || t('access:ldap.unsaved') })}
      onCancel={close}
      destroyOnHidden
      width={620}
      footer={<Button onClick={close}>{t('access:common.close')}</Button>}
    >
      <Typography.Paragraph type="secondary">{t('access:ldap.testHelp')}</Typography.Paragraph>
      <Form<{ username: string; password?: string }>
        layout="vertical"
        onFinish={(values) => void run(values)}
        requiredMark={false}
      >
        <Flex gap={12} wrap align="flex-end">
          <Form.Item
            name="username"
            label={t('access:ldap.testUsername')}
            rules={[{ required: true, whitespace: true, message: t('access:ldap.testUsernameRequired') }]}
            style={{ flex: '1 1 180px', marginBottom: 12 }}
          >
            <Input autoComplete="off" data-testid="ldap-test-username" />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('access:ldap.testPassword')}
            style={{ flex: '1 1 180px', marginBottom: 12 }}
          >
            <PasswordInput autoComplete="new-password" data-testid="ldap-test-password" />
          </Form.Item>
          <Form.Item style={{ marginBottom: 12 }}>
            <Button type="primary" htmlType="submit" loading={running} data-testid="ldap-test-run">
              {t('access:ldap.runTest')}
            </Button>
          </Form.Item>
        </Flex>
      </Form>
      {result && <LdapTestSteps result={result} />}
    </Modal>
  );
}
