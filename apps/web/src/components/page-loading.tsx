import { Spin } from 'antd';
import { useT } from '../i18n/i18n';

/** Shown while a lazy page or its first data loads. */
export function PageLoading({ tip }: { tip?: string }) {
  const t = useT();
  return (
    <div style={{ display: 'flex', justifyContent: 'center', alignItems: 'center', minHeight: 240 }}>
      <Spin description={tip ?? t('common:app.loading')} />
    </div>
  );
}
