import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

export default function UnauthorizedPage() {
  const t = useT();
  const navigate = useNavigate();
  return (
    <Result
      status="403"
      title={t('errors:unauthorized.title')}
      subTitle={<span data-testid="unauthorized-text">{t('errors:unauthorized.text')}</span>}
      extra={
        <Button type="primary" data-testid="back-home" onClick={() => void navigate(paths.root)}>
          {t('common:actions.backHome')}
        </Button>
      }
    />
  );
}
