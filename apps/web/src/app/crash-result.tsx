import { Button, Result } from 'antd';
import { useT } from '../i18n/i18n';

/** What a crashed route shows (loaded by `route-error.tsx` when a route fails). */
export default function CrashResult() {
  const t = useT();
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
