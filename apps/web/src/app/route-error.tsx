import { useEffect } from 'react';
import { Button, Result } from 'antd';
import { useRouteError } from 'react-router';
import { useT } from '../i18n/i18n';
import { recordError } from './error-log';

/** A page that failed to load or render: logged (production) and offered a reload. */
export function RouteError() {
  const t = useT();
  const error = useRouteError();
  useEffect(() => recordError(error, 'route'), [error]);
  return (
    <Result
      status="500"
      title={t('errors:crash.title')}
      subTitle={t('errors:crash.text')}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('common:actions.reload')}
        </Button>
      }
    />
  );
}
