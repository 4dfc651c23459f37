import { Button, Result } from 'antd';
import { Link } from 'react-router';
import { PublicPage } from '../../components/public-page';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

/** A public route of docs/console.md#routes whose module has not landed yet. */
export type UpcomingRoute = 'remoteAdd';

/** What will be at a public route: its title, what it will do, and the way to the login. */
export function UpcomingPage({ route }: { route: UpcomingRoute }) {
  const t = useT();
  return (
    <PublicPage width={520}>
      <Result
        status="info"
        title={t(`menu:${route}`)}
        subTitle={
          <>
            <p>{t(`errors:upcoming.${route}`)}</p>
            <p>{t('errors:upcoming.text')}</p>
          </>
        }
        extra={
          <Link to={paths.login}>
            <Button type="primary">{t('errors:upcoming.toLogin')}</Button>
          </Link>
        }
        data-testid={`upcoming-${route}`}
      />
    </PublicPage>
  );
}

export function RemoteAddPage() {
  return <UpcomingPage route="remoteAdd" />;
}
