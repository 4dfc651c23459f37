import { lazy, Suspense, useEffect } from 'react';
import { Button } from 'antd';
import { useRouteError } from 'react-router';
import { PageLoading } from '../components/page-loading';
import { useT } from '../i18n/i18n';
import { recordError } from './error-log';

/** The same words and reload button without the illustration, for when no chunk loads any more. */
function PlainCrash() {
  const t = useT();
  return (
    <div style={{ textAlign: 'center', padding: 48 }}>
      <h3>{t('errors:crash.title')}</h3>
      <p>{t('errors:crash.text')}</p>
      <Button type="primary" onClick={() => window.location.reload()}>
        {t('common:actions.reload')}
      </Button>
    </div>
  );
}

// antd's Result (and its illustration) loads on a crash only, never before the login page. A
// route that failed because its chunk is gone (a new version deployed) may find this one gone too.
const CrashResult = lazy(() => import('./crash-result').catch(() => ({ default: PlainCrash })));

/** A page that failed to load or render: logged (production) and offered a reload. */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => recordError(error, 'route'), [error]);
  return (
    <Suspense fallback={<PageLoading />}>
      <CrashResult />
    </Suspense>
  );
}
