import { useEffect, useState } from 'react';
import { Result, Spin } from 'antd';
import { Link, Navigate } from 'react-router';
import { askHostForToken, isHosted } from '../../api/parent-window';
import { getToken } from '../../api/session';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

/**
 * Where an embedded console without a token waits: it asks the parent page for a
 * token ({type:'initToken'}); the parent answers {type:'refreshToken', token}, which
 * the app's message listener stores before it goes on to /. A sub-console tab the product
 * page opened asks that console window (its opener) the same way.
 */
export default function IframeInitPage() {
  const t = useT();
  const embedded = isHosted();
  const [hadToken] = useState(() => Boolean(getToken()));

  useEffect(() => {
    if (embedded && !hadToken) askHostForToken();
  }, [embedded, hadToken]);

  if (hadToken) return <Navigate to={paths.root} replace />;
  if (!embedded) {
    return (
      <Result
        status="info"
        title={t('auth:iframeInit.standalone')}
        extra={<Link to={paths.login}>{t('auth:iframeInit.toLogin')}</Link>}
      />
    );
  }
  return (
    <div style={{ display: 'flex', justifyContent: 'center', paddingTop: 120 }} data-testid="iframe-init">
      <Spin size="large" description={t('auth:iframeInit.waiting')} />
    </div>
  );
}
