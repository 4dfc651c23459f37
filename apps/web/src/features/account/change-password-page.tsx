import { Alert, App, Button, Flex } from 'antd';
import { useNavigate } from 'react-router';
import { clearSession } from '../../api/session';
import { loadUserInfo, logout } from '../../api/user';
import { PublicPage } from '../../components/public-page';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { ChangePasswordForm } from './change-password-form';

/** The password change a user must make before going on (userinfo.must_change_password). */
export default function ChangePasswordPage() {
  const t = useT();
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
        <Alert type="warning" showIcon title={t('account:password.mustChange')} />
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
