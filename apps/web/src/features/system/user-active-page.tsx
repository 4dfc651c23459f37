import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App, Form, Input, Spin, Steps, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { api } from '@ksp/contracts';
import { fetchSystemStatus, activateSystem, systemKeys } from '../../api/system';
import { fetchPasswordRules, signIn, userKeys } from '../../api/user';
import { NewPasswordFields } from '../../components/password-fields';
import { PublicPage } from '../../components/public-page';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { LockButton } from '../../components/reclick-lock';
import { paths } from '../../config/paths';
import { bindUkey, type BridgeCertificate } from '../../api/ukey';
import { ActivateUkeyStep } from './activate-ukey-step';
import { useT } from '../../i18n/i18n';
import { forgetSetupCode, isWellFormedSetupCode, rememberedSetupCode, withSetupCode } from './setup-code';
import { SetupCodeField } from './setup-code-field';

interface ActivateValues {
  username: string;
  password: string;
  confirm: string;
  email: string;
}

/**
 * Activation after initialization: "verify UKEY" (the bridge reads the UKEY to bind; skippable
 * while MFA is off) then "bind email", which creates the first administrator, logs in as them
 * and binds the UKEY read in the first step.
 */
export default function UserActivePage() {
  const t = useT();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [form] = Form.useForm<ActivateValues>();
  const [step, setStep] = useState(0);
  const [submitting, setSubmitting] = useState(false);
  const [ukey, setUkey] = useState<BridgeCertificate | null>(null);
  const status = useQuery({ queryKey: systemKeys.status, queryFn: fetchSystemStatus, staleTime: 0 });
  const rules = useQuery({ queryKey: userKeys.passwordRules, queryFn: fetchPasswordRules });
  const [setupCode, setSetupCode] = useState(() => rememberedSetupCode());
  const codeRequired = status.data?.setup_code_required ?? false;

  useEffect(() => {
    if (!status.data) return;
    if (!status.data.initialized) void navigate(paths.systemActive, { replace: true });
    else if (status.data.activated && !submitting) void navigate(paths.login, { replace: true });
  }, [status.data, submitting, navigate]);

  /** Binds the UKEY read in the first step to the new administrator (now signed in). */
  const bindFirstUkey = async (chosen: BridgeCertificate, username: string): Promise<boolean> => {
    try {
      const bound = await bindUkey(chosen.serial, chosen.certificate, undefined, true);
      void message.success(t('system:activate.ukeyBound', { serial: bound.ukey_serial, username }));
      return true;
    } catch (error) {
      void message.error(
        t('system:activate.ukeyBindFailed', { error: error instanceof Error ? error.message : '' }),
      );
      return false;
    }
  };

  const submit = async ({ username, password, email }: ActivateValues) => {
    setSubmitting(true);
    try {
      await activateSystem(
        withSetupCode({ username: username.trim(), password, email: email.trim() }, codeRequired, setupCode),
      );
      forgetSetupCode();
      void message.success(t('system:activate.success'));
      let data;
      try {
        data = await signIn(username, password);
      } catch {
        void navigate(paths.login, { replace: true });
        return;
      }
      if (ukey && !(await bindFirstUkey(ukey, data.userinfo.name))) {
        void navigate(paths.profile, { replace: true });
        return;
      }
      void navigate(data.userinfo.must_change_password ? paths.changePassword : paths.root, {
        replace: true,
      });
    } catch {
      // The client showed the server's message.
      setSubmitting(false);
    }
  };

  if (status.isPending) {
    return (
      <PublicPage width={560}>
        <Spin description={t('system:checking')} />
      </PublicPage>
    );
  }

  const body = api.system.activate.body;
  const labels = {
    username: t('system:activate.username'),
    password: t('system:activate.password'),
    confirm: t('system:activate.confirm'),
    email: t('system:activate.email'),
  };

  return (
    <PublicPage width={560}>
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('system:activate.title')}
      </Typography.Title>
      <Steps
        size="small"
        current={step}
        style={{ marginBottom: 24 }}
        items={[{ title: t('system:activate.stepUkey') }, { title: t('system:activate.stepEmail') }]}
      />
      {step === 0 ? (
        <ActivateUkeyStep
          onDone={(chosen) => {
            setUkey(chosen);
            setStep(1);
          }}
        />
      ) : (
        <Form<ActivateValues> form={form} layout="vertical" onFinish={(values) => void submit(values)}>
          {codeRequired && (
            <Form.Item>
              <SetupCodeField value={setupCode} onChange={setSetupCode} />
            </Form.Item>
          )}
          <Form.Item
            name="username"
            label={labels.username}
            rules={rulesFromSchema(fieldSchema(body, 'username'), labels.username)}
          >
            <Input autoComplete="username" data-testid="activate-username" />
          </Form.Item>
          <NewPasswordFields
            form={form}
            rules={rules.data}
            label={labels.password}
            confirmLabel={labels.confirm}
            testIds={{ password: 'activate-password', confirm: 'activate-confirm' }}
          />
          <Form.Item
            name="email"
            label={labels.email}
            rules={rulesFromSchema(fieldSchema(body, 'email'), labels.email)}
          >
            <Input type="email" autoComplete="email" data-testid="activate-email" />
          </Form.Item>
          <LockButton
            type="primary"
            htmlType="submit"
            block
            loading={submitting}
            disabled={codeRequired && !isWellFormedSetupCode(setupCode)}
            data-testid="activate-submit"
          >
            {t('system:activate.submit')}
          </LockButton>
        </Form>
      )}
    </PublicPage>
  );
}
