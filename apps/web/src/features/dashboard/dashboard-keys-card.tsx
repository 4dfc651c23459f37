import { Suspense } from 'react';
import { Link } from 'react-router';
import { Card, Col, Row, Space, Tag, Typography } from 'antd';
import { formatThousands } from '../../components/number-format';
import { useHasPermission } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { FigureValue, paths, SmallFigure, type Summary } from './dashboard-figures';
import { CategoryChart, chartFallback } from './dashboard-operations';

/** The keys of the domain: by state, rotation due, by family and by algorithm. */
export function KeysCard({ keys }: { keys: Summary['keys'] }) {
  const t = useT();
  const canReadKeys = useHasPermission('key:read');
  const keysTo = (filter: string) => (canReadKeys ? `${paths.keys}?${filter}` : null);
  const families = keys.by_family.map((f) => ({
    key: f.family,
    label: t(`dashboard:families.${f.family}`),
    count: f.count,
  }));
  return (
    <Card
      title={t('dashboard:keys.title')}
      style={{ height: '100%' }}
      extra={
        <Typography.Text type="secondary">
          <FigureValue
            value={t('dashboard:keys.total', { count: formatThousands(keys.total) })}
            to={canReadKeys ? paths.keys : null}
            testId="dashboard-keys-total"
          />
        </Typography.Text>
      }
    >
      <Typography.Text type="secondary">{t('dashboard:keys.byState')}</Typography.Text>
      <Row gutter={[8, 8]} style={{ marginBottom: 12 }}>
        {keys.by_state.map((s) => (
          <Col key={s.state} xs={12} sm={6}>
            <SmallFigure
              title={t(`dashboard:states.${s.state}`)}
              value={s.count}
              to={keysTo(`state=${s.state}`)}
              testId={`dashboard-keys-${s.state}`}
            />
          </Col>
        ))}
      </Row>
      <Row gutter={[8, 8]} style={{ marginBottom: 12 }}>
        <Col xs={12}>
          <SmallFigure
            title={t('dashboard:keys.rotationOverdue')}
            value={keys.rotation.overdue}
            to={null}
            testId="dashboard-keys-rotation-overdue"
          />
        </Col>
        <Col xs={12}>
          <SmallFigure
            title={t('dashboard:keys.rotationDue')}
            value={keys.rotation.due}
            to={null}
            testId="dashboard-keys-rotation-due"
          />
        </Col>
        <Col span={24}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('dashboard:keys.rotationHint')}
          </Typography.Text>
        </Col>
      </Row>
      <Typography.Text type="secondary">{t('dashboard:keys.byFamily')}</Typography.Text>
      <Suspense fallback={chartFallback(200)}>
        <CategoryChart data={families} height={200} />
      </Suspense>
      <Space wrap size={[4, 4]} data-testid="dashboard-keys-algorithms">
        {keys.by_algorithm.length === 0 && (
          <Typography.Text type="secondary">{t('dashboard:keys.none')}</Typography.Text>
        )}
        {keys.by_algorithm.map((a) => {
          const label = `${a.algorithm} ${formatThousands(a.count)}`;
          const to = keysTo(`algorithm=${encodeURIComponent(a.algorithm)}`);
          return <Tag key={a.algorithm}>{to ? <Link to={to}>{label}</Link> : label}</Tag>;
        })}
      </Space>
    </Card>
  );
}
