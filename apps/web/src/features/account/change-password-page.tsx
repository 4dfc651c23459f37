import { Alert, App, Button, Flex, Typography } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { clearSession, useSignedIn } from '../../api/session';
import { loadUserInfo, logout } from '../../api/user';
import { PublicPage } from '../../components/public-page';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { ChangePasswordForm } from './change-password-form';

/**
 * The password change: one a user must make before going on (userinfo.must_change_password),
 * or one chosen by opening the page — only the forced one says "you must".
 */
export default function ChangePasswordPage() {
  const t = useT();
  const location = useLocation();
  const demanded = (location.state as { forced?: boolean } | null)?.forced === true;
  const forced = (useSignedIn()?.userinfo.must_change_password ?? false) || demanded;
  const navigate = useNavigate();
  const { message } = App.useApp();

  const changed = async () => {
    void message.success(t('account:password.changed'));
    await loadUserInfo().catch(() => undefined);
    void navigate(paths.root, { replace: true });
  };

  const signOut = async () => {
    await logout().catch(() => undefined);
    clearSession();
    window.location.assign(paths.login);
  };

  return (
    <PublicPage width={520}>
      <Flex vertical gap={16}>
        {forced ? (
          <Alert
            type="warning"
            showIcon
            title={t('account:password.mustChange')}
            data-testid="password-must-change"
          />
        ) : (
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('account:password.title')}
          </Typography.Title>
        )}
        <ChangePasswordForm onChanged={changed} />
        <Flex justify="flex-end">
          <Button type="link" onClick={() => void signOut()} data-testid="logout">
            {t('layout:topbar.logout')}
          </Button>
        </Flex>
      </Flex>
    </PublicPage>
  );
}
