import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

export default function NotFoundPage() {
  const t = useT();
  const navigate = useNavigate();
  return (
    <Result
      status="404"
      title={t('errors:notFound.title')}
      subTitle={t('errors:notFound.text')}
      extra={
        <Button type="primary" data-testid="back-home" onClick={() => void navigate(paths.root)}>
          {t('common:actions.backHome')}
        </Button>
      }
    />
  );
}
