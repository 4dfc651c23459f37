import { lazy, Suspense, useEffect, useState } from 'react';
import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Form } from 'antd';
// The bare input, not antd's Input module (which brings TextArea, Search and OTP with it): the
// login page's first load stays small (docs/performance.md, "The console").
import Input from 'antd/es/input/Input';
import { useNavigate, useSearchParams } from 'react-router';
import { Code } from '@ksp/contracts';
import { ApiError } from '../../api/api-error';
import { fetchPublicConfig } from '../../api/config';
import { fetchSystemStatus, systemKeys } from '../../api/system';
import type { SignedIn } from '../../api/session';
import { signIn } from '../../api/user';
import { useSubmit } from '../../components/use-submit';
import { Heading } from '../../components/heading';
import { PageLoading } from '../../components/page-loading';
import { PasswordInput } from '../../components/password-input';
import { PublicPage } from '../../components/public-page';
import { useSiteConfig } from '../../components/use-site-config';
import { paths, safeRedirect, setupPath } from '../../config/paths';
import { loadPageNamespaces, useT } from '../../i18n/i18n';

// The Ukey step shows only when the server asks for it (4503): loaded then, with its texts.
const UkeyPanel = lazy(async () => {
  const [{ UkeyPanel: Panel }] = await Promise.all([import('./ukey-panel'), loadPageNamespaces()]);
  return { default: Panel };
});

// The MFA mark and the error show after the form (the public configuration, a refused
// sign-in): loaded once the form is up, not before.
const loadNotes = () => import('./login-notes');
const MfaTag = lazy(async () => ({ default: (await loadNotes()).MfaTag }));
const LoginError = lazy(async () => ({ default: (await loadNotes()).LoginError }));

interface LoginValues {
  username: string;
  password: string;
}

export default function LoginPage() {
  const t = useT();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [form] = Form.useForm<LoginValues>();
  const { run, buttonProps } = useSubmit();
  const [error, setError] = useState<string | null>(null);
  const [ukeyUser, setUkeyUser] = useState<string | null>(null);
  const [mfaChecked, setMfaChecked] = useState<boolean | null>(null);
  const site = useSiteConfig();
  const status = useQuery({ queryKey: systemKeys.status, queryFn: fetchSystemStatus, staleTime: 0 });

  useEffect(() => void loadNotes(), []);

  // A fresh install goes to initialization or activation first.
  useEffect(() => {
    const target = status.data ? setupPath(status.data) : null;
    if (target) void navigate(target, { replace: true });
  }, [status.data, navigate]);

  /** Signed in (password, or password then UKEY): the forced password change, else the wanted page. */
  const finish = (data: SignedIn) => {
    const target = data.userinfo.must_change_password
      ? paths.changePassword
      : safeRedirect(params.get('redirect'));
    void navigate(target, { replace: true });
  };

  const submit = ({ username, password }: LoginValues) =>
    run(async () => {
      setError(null);
      try {
        // The MFA setting decides the login path: looked up before the login finishes.
        const publicEntries = await fetchPublicConfig().catch(() => []);
        setMfaChecked(publicEntries.find((entry) => entry.key === 'MFA')?.value === '1');
        finish(await signIn(username, password));
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === Code.UKEY_REQUIRED) {
          setUkeyUser(username.trim());
        } else if (failure instanceof ApiError && failure.code === Code.BAD_CREDENTIALS) {
          setError(failure.message || t('auth:login.badCredentials'));
        } else {
          setError(
            failure instanceof Error && failure.message ? failure.message : t('common:feedback.error'),
          );
        }
      }
    });

  if (ukeyUser !== null) {
    return (
      <PublicPage>
        <Suspense fallback={<PageLoading />}>
          <UkeyPanel username={ukeyUser} onBack={() => setUkeyUser(null)} onSignedIn={finish} />
        </Suspense>
      </PublicPage>
    );
  }

  return (
    <PublicPage>
      <Heading level={4} style={{ marginTop: 0 }}>
        {t('auth:login.title')}
        {(mfaChecked ?? site.data?.MFA === '1') && (
          <Suspense>
            <MfaTag>{t('auth:login.mfaOn')}</MfaTag>
          </Suspense>
        )}
      </Heading>
      {error && (
        <Suspense>
          <LoginError text={error} />
        </Suspense>
      )}
      <Form<LoginValues>
        form={form}
        layout="vertical"
        onFinish={(values) => void submit(values)}
        requiredMark={false}
      >
        <Form.Item
          name="username"
          label={t('auth:login.username')}
          extra={t('auth:login.directoryHint')}
          rules={[{ required: true, whitespace: true, message: t('auth:login.usernameRequired') }]}
        >
          <Input
            prefix={<UserOutlined />}
            autoComplete="username"
            autoFocus
            data-testid="login-username"
            maxLength={512}
          />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('auth:login.password')}
          rules={[{ required: true, message: t('common:validation.passwordRequired') }]}
        >
          <PasswordInput
            prefix={<LockOutlined />}
            autoComplete="current-password"
            data-testid="login-password"
          />
        </Form.Item>
        <Button type="primary" htmlType="submit" block {...buttonProps} data-testid="login-submit">
          {t('auth:login.submit')}
        </Button>
      </Form>
    </PublicPage>
  );
}
