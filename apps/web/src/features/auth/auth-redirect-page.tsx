import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Result, Spin } from 'antd';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { getToken, setToken } from '../../api/session';
import { loadUserInfo } from '../../api/user';
import { PublicPage } from '../../components/public-page';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

const TOKEN_SHAPE = /^[\w.~+/=-]{8,2048}$/;
const ENTER_DELAY_MS = 1500;

/** After SSO: stores the `token` of the URL, loads the user info, confirms and goes to /. */
export default function AuthRedirectPage() {
  const t = useT();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token');
  const valid = token === null ? Boolean(getToken()) : TOKEN_SHAPE.test(token);

  const session = useQuery({
    queryKey: ['auth-redirect', token],
    queryFn: async () => {
      if (token !== null) setToken(token);
      await loadUserInfo();
      return true;
    },
    enabled: valid,
    staleTime: Infinity,
  });

  useEffect(() => {
    if (!session.isSuccess) return;
    const timer = setTimeout(() => void navigate(paths.root, { replace: true }), ENTER_DELAY_MS);
    return () => clearTimeout(timer);
  }, [session.isSuccess, navigate]);

  let body;
  if (!valid) {
    body = (
      <Result
        status="warning"
        title={t('common:validation.invalidUrl')}
        extra={<Link to={paths.login}>{t('auth:authRedirect.toLogin')}</Link>}
      />
    );
  } else if (session.isError) {
    body = (
      <Result
        status="error"
        title={t('auth:authRedirect.failed')}
        extra={<Link to={paths.login}>{t('auth:authRedirect.toLogin')}</Link>}
      />
    );
  } else if (session.isSuccess) {
    body = (
      <Result
        status="success"
        data-testid="auth-success"
        title={t('auth:authRedirect.success')}
        subTitle={t('auth:authRedirect.successText')}
        extra={
          <Button type="primary" onClick={() => void navigate(paths.root, { replace: true })}>
            {t('auth:authRedirect.enter')}
          </Button>
        }
      />
    );
  } else {
    body = <Spin description={t('auth:authRedirect.loading')} />;
  }
  return <PublicPage>{body}</PublicPage>;
}
