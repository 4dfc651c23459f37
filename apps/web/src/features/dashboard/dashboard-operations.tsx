import { lazy, Suspense, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Segmented, Space, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { opClasses, type OpRange } from '@ksp/contracts';
import { dashboardKeys, fetchDashboardOperations } from '../../api/dashboard';
import { formatThousands } from '../../components/number-format';
import { useT } from '../../i18n/i18n';

// recharts is loaded with the charts only, in a chunk of its own.
const OperationsChart = lazy(() =>
  import('./dashboard-charts').then((m) => ({ default: m.OperationsChart })),
);
export const CategoryChart = lazy(() =>
  import('./dashboard-charts').then((m) => ({ default: m.CategoryChart })),
);

/** How often the figures are read again. */
export const REFRESH_MS = 30_000;

/** The room a chart takes while it loads. */
export const chartFallback = (height: number) => <div style={{ height }} />;

/** The operations of the domain over the last day or week, by class. */
export function OperationsCard() {
  const t = useT();
  const [range, setRange] = useState<OpRange>('24h');
  const ops = useQuery({
    queryKey: dashboardKeys.operations(range),
    queryFn: () => fetchDashboardOperations(range),
    refetchInterval: REFRESH_MS,
  });
  const data = ops.data;
  const series = opClasses.map((c) => ({ key: c, label: t(`dashboard:classes.${c}`) }));
  const format = range === '24h' ? 'HH:mm' : 'MM-DD HH:mm';
  const points = (data?.points ?? []).map((p) => ({ label: dayjs(p.at).format(format), ...p.counts }));
  return (
    <Card
      title={t('dashboard:operations.title')}
      data-testid="dashboard-operations"
      extra={
        <Segmented<OpRange>
          size="small"
          value={range}
          onChange={setRange}
          options={[
            { value: '24h', label: t('dashboard:operations.range24h') },
            { value: '7d', label: t('dashboard:operations.range7d') },
          ]}
        />
      }
    >
      {data ? (
        <>
          <Space wrap size={[16, 8]} style={{ marginBottom: 8 }}>
            <Typography.Text strong data-testid="dashboard-operations-total">
              {t('dashboard:operations.total', { count: formatThousands(data.total) })}
            </Typography.Text>
            <Typography.Text type="secondary">
              {t(range === '24h' ? 'dashboard:operations.per5min' : 'dashboard:operations.perHour')}
            </Typography.Text>
            {opClasses.map((c) => (
              <Tag key={c}>
                {t(`dashboard:classes.${c}`)}:{' '}
                <span data-testid={`dashboard-ops-${c}`}>{formatThousands(data.totals[c])}</span>
              </Tag>
            ))}
          </Space>
          <Suspense fallback={chartFallback(260)}>
            <OperationsChart points={points} series={series} />
          </Suspense>
        </>
      ) : (
        chartFallback(260)
      )}
    </Card>
  );
}
